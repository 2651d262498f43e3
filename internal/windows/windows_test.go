/*
Copyright 2026 The applyset-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package windows

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func must(t *testing.T, kind Kind, schedule string, d time.Duration, zone string) Window {
	t.Helper()
	w, err := Parse(kind, schedule, d, zone)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, schedule, zone string
		kind                 Kind
		d                    time.Duration
		refused              string
	}{
		{name: "five fields", kind: Deny, schedule: "0 22 * * 5", d: 58 * time.Hour, zone: "Europe/Berlin"},
		{name: "descriptor", kind: Allow, schedule: "@daily", d: time.Hour},
		{name: "UTC by name", kind: Allow, schedule: "0 9 * * 1-5", d: 8 * time.Hour, zone: "UTC"},
		{name: "unknown kind", kind: "Maybe", schedule: "@daily", d: time.Hour, refused: "neither Allow nor Deny"},
		{name: "zero duration", kind: Deny, schedule: "@daily", refused: "duration"},
		{name: "too long", kind: Deny, schedule: "@daily", d: MaxDuration + time.Second, refused: "duration"},
		{name: "seconds field", kind: Deny, schedule: "0 0 22 * * 5", d: time.Hour, refused: "five fields"},
		{name: "not cron", kind: Deny, schedule: "weekends", d: time.Hour, refused: "five fields"},
		{name: "out of range", kind: Deny, schedule: "61 * * * *", d: time.Hour, refused: "five fields"},
		{name: "zone in schedule", kind: Deny, schedule: "CRON_TZ=Asia/Tokyo 0 22 * * 5", d: time.Hour, refused: "write it in timeZone"},
		{name: "every, not anchored", kind: Deny, schedule: "@every 1h", d: time.Hour, refused: "not anchored"},
		{name: "unknown zone", kind: Deny, schedule: "@daily", d: time.Hour, zone: "Europe/Atlantis", refused: "not an IANA time zone"},
		{name: "local zone", kind: Deny, schedule: "@daily", d: time.Hour, zone: "Local", refused: "operator's machine"},
		{name: "path as zone", kind: Deny, schedule: "@daily", d: time.Hour, zone: "../../etc/passwd", refused: "not an IANA time zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.kind, tc.schedule, tc.d, tc.zone)
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Fatalf("want an error saying %q, got %v", tc.refused, err)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	berlinNight := must(t, Deny, "30 2 * * *", time.Hour, "Europe/Berlin")
	lateEvening := must(t, Deny, "0 23 * * *", 2*time.Hour, "UTC")
	weekend := must(t, Deny, "0 22 * * 5", 58*time.Hour, "Europe/Berlin")
	for _, tc := range []struct {
		name string
		w    Window
		at   string
		open bool
	}{
		{"before the opening", berlinNight, "2026-06-10T02:29:59+02:00", false},
		{"at the opening", berlinNight, "2026-06-10T02:30:00+02:00", true},
		{"just before the end", berlinNight, "2026-06-10T03:29:59+02:00", true},
		{"at the end", berlinNight, "2026-06-10T03:30:00+02:00", false},
		{"read in its zone, not UTC", berlinNight, "2026-06-10T02:30:00Z", false},
		// 2026-03-29 the clocks go from 02:00 to 03:00 in Berlin: 02:30 does
		// not happen, and the window does not open that night.
		{"spring forward skips the window", berlinNight, "2026-03-29T03:10:00+02:00", false},
		{"the day after spring forward", berlinNight, "2026-03-30T02:45:00+02:00", true},
		// 2026-10-25 the clocks go from 03:00 back to 02:00: 02:30 happens
		// twice, and the window opens at each.
		{"fall back, first 02:30", berlinNight, "2026-10-25T02:45:00+02:00", true},
		{"fall back, second 02:30", berlinNight, "2026-10-25T02:45:00+01:00", true},
		{"fall back, after both", berlinNight, "2026-10-25T03:30:00+01:00", false},
		{"spans midnight, before", lateEvening, "2026-06-10T22:59:00Z", false},
		{"spans midnight, evening", lateEvening, "2026-06-10T23:30:00Z", true},
		{"spans midnight, after midnight", lateEvening, "2026-06-11T00:59:59Z", true},
		{"spans midnight, closed", lateEvening, "2026-06-11T01:00:00Z", false},
		{"weekend, Saturday noon", weekend, "2026-06-13T12:00:00+02:00", true},
		{"weekend, Monday 07:59", weekend, "2026-06-15T07:59:00+02:00", true},
		{"weekend, Monday 08:00", weekend, "2026-06-15T08:00:00+02:00", false},
		{"weekend, Friday afternoon", weekend, "2026-06-12T16:00:00+02:00", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.Open(at(t, tc.at)); got != tc.open {
				t.Fatalf("Open(%s) = %v, want %v", tc.at, got, tc.open)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	office := must(t, Allow, "0 9 * * 1-5", 8*time.Hour, "Europe/Berlin")
	lunch := must(t, Deny, "0 12 * * *", time.Hour, "Europe/Berlin")
	berlinNight := must(t, Deny, "30 2 * * *", time.Hour, "Europe/Berlin")
	always := must(t, Deny, "* * * * *", time.Hour, "UTC")
	for _, tc := range []struct {
		name    string
		windows []Window
		at      string
		allowed bool
		by      *Window
		next    string // RFC 3339 with the zone's offset; "" for none
	}{
		{name: "no windows", at: "2026-06-10T12:30:00Z", allowed: true},
		{name: "inside an allow window", windows: []Window{office}, at: "2026-06-10T10:00:00+02:00",
			allowed: true, by: &office, next: "2026-06-10T17:00:00+02:00"},
		{name: "outside every allow window", windows: []Window{office}, at: "2026-06-10T18:00:00+02:00",
			next: "2026-06-11T09:00:00+02:00"},
		{name: "friday evening waits for monday", windows: []Window{office}, at: "2026-06-12T18:00:00+02:00",
			next: "2026-06-15T09:00:00+02:00"},
		{name: "deny wins over allow", windows: []Window{office, lunch}, at: "2026-06-10T12:30:00+02:00",
			by: &lunch, next: "2026-06-10T13:00:00+02:00"},
		{name: "deny alone, closed", windows: []Window{lunch}, at: "2026-06-10T10:00:00+02:00",
			allowed: true, next: "2026-06-10T12:00:00+02:00"},
		{name: "a deny window ending outside the allow windows", windows: []Window{office, lunch}, at: "2026-06-13T12:30:00+02:00",
			by: &lunch, next: "2026-06-15T09:00:00+02:00"},
		{name: "spring forward: next opening is the day after", windows: []Window{berlinNight}, at: "2026-03-28T12:00:00+01:00",
			allowed: true, next: "2026-03-30T02:30:00+02:00"},
		{name: "fall back: held across both 02:30s", windows: []Window{berlinNight}, at: "2026-10-25T02:45:00+02:00",
			by: &berlinNight, next: "2026-10-25T03:30:00+01:00"},
		{name: "a window that never closes", windows: []Window{always}, at: "2026-06-10T12:00:00Z", by: &always},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.windows, at(t, tc.at))
			if d.Allowed != tc.allowed {
				t.Errorf("Allowed = %v, want %v", d.Allowed, tc.allowed)
			}
			if (d.By == nil) != (tc.by == nil) || d.By != nil && d.By.String() != tc.by.String() {
				t.Errorf("By = %v, want %v", d.By, tc.by)
			}
			got := ""
			if !d.Next.IsZero() {
				got = d.Next.Format(time.RFC3339)
			}
			if got != tc.next {
				t.Errorf("Next = %q, want %q", got, tc.next)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0 22 * * 5", "@daily", "*/5 1-3 1,15 JAN-MAR MON-FRI", "CRON_TZ=UTC * * * * *", "@every 1h", "61 * * * *"} {
		f.Add(s, "Europe/Berlin", int64(time.Hour))
	}
	f.Add("@weekly", "../zoneinfo", int64(-1))
	now := time.Date(2026, 10, 25, 2, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, schedule, zone string, d int64) {
		w, err := Parse(Deny, schedule, time.Duration(d), zone)
		if err != nil {
			return
		}
		// Whatever parses decides, and a change it names lies ahead.
		dec := Decide([]Window{w}, now)
		if !dec.Next.IsZero() && !dec.Next.After(now) {
			t.Fatalf("%s: next change %s is not after %s", w, dec.Next, now)
		}
		if !dec.Next.IsZero() && Decide([]Window{w}, dec.Next).Allowed == dec.Allowed {
			t.Fatalf("%s: nothing changes at %s", w, dec.Next)
		}
	})
}

func TestDecideAll(t *testing.T) {
	office := must(t, Allow, "0 9 * * 1-5", 8*time.Hour, "Europe/Berlin")
	evening := must(t, Allow, "0 16 * * *", 4*time.Hour, "Europe/Berlin")
	night := must(t, Allow, "0 22 * * *", time.Hour, "Europe/Berlin")
	mornings := must(t, Allow, "0 8 * * *", 3*time.Hour, "Europe/Berlin")
	friday := must(t, Deny, "0 12 * * 5", 12*time.Hour, "Europe/Berlin")
	for _, tc := range []struct {
		name    string
		groups  [][]Window
		at      string
		allowed bool
		next    string
	}{
		{name: "no groups", at: "2026-06-10T12:00:00Z", allowed: true},
		{name: "one group's allow does not widen another's", groups: [][]Window{{office}, {evening}},
			at: "2026-06-10T19:00:00+02:00", next: "2026-06-11T16:00:00+02:00"},
		{name: "groups that never allow together", groups: [][]Window{{office}, {night}}, at: "2026-06-10T22:30:00+02:00"},
		{name: "both allow: next is the first to hold", groups: [][]Window{{office}, {mornings}},
			at: "2026-06-10T09:30:00+02:00", allowed: true, next: "2026-06-10T11:00:00+02:00"},
		{name: "held until both allow", groups: [][]Window{{mornings}, {office}},
			at: "2026-06-10T07:00:00+02:00", next: "2026-06-10T09:00:00+02:00"},
		{name: "a deny in one group holds", groups: [][]Window{{office}, {friday}},
			at: "2026-06-12T13:00:00+02:00", next: "2026-06-15T09:00:00+02:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := DecideAll(tc.groups, at(t, tc.at))
			if d.Unsearched {
				t.Errorf("everyday windows ran out of the search's %d steps", MaxSteps)
			}
			got := ""
			if !d.Next.IsZero() {
				got = d.Next.Format(time.RFC3339)
			}
			if d.Allowed != tc.allowed || got != tc.next {
				t.Fatalf("DecideAll = allowed %v next %q, want %v %q", d.Allowed, got, tc.allowed, tc.next)
			}
		})
	}
}

// TestDecideBounded checks that the costliest windows a tenant may write
// are decided exactly, within MaxSteps: only when the decision changes next
// is left unknown.
func TestDecideBounded(t *testing.T) {
	var costly []Window
	for range 15 {
		costly = append(costly, must(t, Allow, "* * * * *", MaxDuration, "Europe/Berlin"))
	}
	costly = append(costly, must(t, Allow, "* * * * *", 30*time.Second, "Europe/Berlin"))
	now := at(t, "2026-11-29T12:00:00Z")
	d := DecideAll([][]Window{costly, costly, costly}, now)
	if !d.Allowed || !d.Unsearched || !d.Next.IsZero() {
		t.Errorf("costly Allow windows: allowed %v, unsearched %v, next %v; want allowed, unsearched, no next", d.Allowed, d.Unsearched, d.Next)
	}
	freeze := must(t, Deny, "0 0 * * *", 24*time.Hour, "UTC")
	d = DecideAll([][]Window{costly, append(slices.Clone(costly), freeze)}, now)
	if d.Allowed || d.By == nil || d.By.Kind != Deny {
		t.Errorf("an open Deny window among costly ones: allowed %v by %v, want held by the Deny window", d.Allowed, d.By)
	}
}

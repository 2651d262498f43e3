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

package claims

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	start := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	now := start.Add(time.Minute)
	const lease, margin = 15 * time.Second, 5 * time.Second
	held := func(replica string, term int64, age time.Duration) Lease {
		return Lease{Replica: replica, Term: term, Held: true, Since: now.Add(-age)}
	}
	view := func(self Holder, leases ...Lease) View {
		v := View{Self: self, Leases: map[string]Lease{}, Started: start, Now: now, LeaseDuration: lease, Margin: margin}
		for _, l := range leases {
			v.Leases[l.Replica] = l
		}
		return v
	}
	a, b := Holder{Replica: "a", Term: 2}, Holder{Replica: "b", Term: 4}
	// Keys chosen so that with both replicas live, keyA hashes to a and keyB to b.
	keyA, keyB := keyFor(t, "a", []string{"a", "b"}), keyFor(t, "b", []string{"a", "b"})

	for _, tc := range []struct {
		name  string
		key   string
		named Holder
		view  View
		want  Decision
	}{
		{name: "no Lease held: nothing", key: keyA, named: a, view: view(Holder{}, held("b", 4, time.Second)),
			want: Decision{Action: ignore}},
		{name: "named and target: act", key: keyA, named: a, view: view(a, held("a", 2, time.Second), held("b", 4, time.Second)),
			want: Decision{Action: Act}},
		{name: "named, target elsewhere: hand over to its term", key: keyB, named: a, view: view(a, held("b", 4, time.Second)),
			want: Decision{Action: HandOver, To: b}},
		{name: "alone: every set is its", key: keyB, named: a, view: view(a, held("b", 4, lease)),
			want: Decision{Action: Act}},
		{name: "unowned, target: claim", key: keyA, named: Holder{}, view: view(a, held("b", 4, time.Second)),
			want: Decision{Action: Claim}},
		{name: "unowned, another's target: ignore", key: keyB, named: Holder{}, view: view(a, held("b", 4, time.Second)),
			want: Decision{Action: ignore}},
		{name: "named other, another's target: ignore", key: keyB, named: b, view: view(a, held("b", 4, time.Second)),
			want: Decision{Action: ignore}},
		{name: "named other, live: wait until it could be fenced", key: keyA, named: b, view: view(a, held("b", 4, time.Second)),
			want: Decision{Action: ignore, After: lease + margin - time.Second}},
		{name: "named other, not renewed within the margin: wait", key: keyA, named: b, view: view(a, held("b", 4, lease+time.Second)),
			want: Decision{Action: ignore, After: margin - time.Second}},
		{name: "named other, not renewed for lease and margin: fence", key: keyA, named: b, view: view(a, held("b", 4, lease+margin)),
			want: Decision{Action: Fence, Fenced: held("b", 4, lease+margin)}},
		{name: "named other's term fenced or released: take over", key: keyA, named: b,
			view: view(a, Lease{Replica: "b", Term: 5, Since: now}), want: Decision{Action: TakeOver}},
		{name: "named other's term released without a new term: take over", key: keyA, named: b,
			view: view(a, Lease{Replica: "b", Term: 4, Since: now}), want: Decision{Action: TakeOver}},
		{name: "named other's later term: take over", key: keyA, named: b, view: view(a, held("b", 6, time.Second)),
			want: Decision{Action: TakeOver}},
		{name: "named other's term newer than observed: wait to see it", key: keyA, named: b,
			view: view(a, held("b", 3, lease+margin)), want: Decision{Action: ignore, After: lease}},
		{name: "named other's Lease missing: wait", key: keyA, named: b,
			view: view(a, Lease{Replica: "b", Missing: true, Since: now.Add(-time.Second)}),
			want: Decision{Action: ignore, After: lease + margin - time.Second}},
		{name: "named other's Lease missing long enough: take over", key: keyA, named: b,
			view: view(a, Lease{Replica: "b", Missing: true, Since: now.Add(-lease - margin)}), want: Decision{Action: TakeOver}},
		{name: "named replica never observed: missing since the start", key: keyA, named: Holder{Replica: "gone", Term: 1},
			view: view(a, held("b", 4, time.Second)), want: Decision{Action: TakeOver}},
		{name: "own earlier term: take over", key: keyA, named: Holder{Replica: "a", Term: 1},
			view: view(a, held("b", 4, time.Second)), want: Decision{Action: TakeOver}},
		{name: "own earlier term, another's target: ignore", key: keyB, named: Holder{Replica: "a", Term: 1},
			view: view(a, held("b", 4, time.Second)), want: Decision{Action: ignore}},
		{name: "own later term, from before its Lease was collected, another's target: hand over", key: keyB,
			named: Holder{Replica: "a", Term: 7}, view: view(a, held("b", 4, time.Second)), want: Decision{Action: HandOver, To: b}},
		{name: "own later term, from before its Lease was collected, target: take over", key: keyA,
			named: Holder{Replica: "a", Term: 7}, view: view(a, held("b", 4, time.Second)), want: Decision{Action: TakeOver}},
		{name: "named other's Lease collected, seen missing for less than lease and margin: wait", key: keyA, named: b,
			view: view(a, Lease{Replica: "b", Missing: true, Since: now.Add(-lease - margin + time.Second)}),
			want: Decision{Action: ignore, After: time.Second}},
		{name: "named other's Lease recreated at a lower term: wait for its replica to hand over", key: keyA, named: b,
			view: view(a, held("b", 1, lease+margin)), want: Decision{Action: ignore, After: lease}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide(tc.key, tc.named, tc.view); got != tc.want {
				t.Fatalf("Decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A Lease deleted as stale must let no set naming its replica be taken
// sooner than the Lease, left unchanged, would have: from the moment a
// replica sees it missing, Decide waits at least as long as for a held
// Lease it sees unchanged from then.
func TestMissingNoSoonerThanUnchanged(t *testing.T) {
	now := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	self, named := Holder{Replica: "a", Term: 2}, Holder{Replica: "b", Term: 4}
	key := keyFor(t, "a", []string{"a"})
	for age := time.Duration(0); age <= 30*time.Second; age += 250 * time.Millisecond {
		decide := func(l Lease) Decision {
			return Decide(key, named, View{Self: self, Leases: map[string]Lease{"b": l}, Started: now.Add(-time.Hour),
				Now: now, LeaseDuration: 15 * time.Second, Margin: 5 * time.Second})
		}
		missing := decide(Lease{Replica: "b", Missing: true, Since: now.Add(-age)})
		unchanged := decide(Lease{Replica: "b", Term: 4, Held: true, Since: now.Add(-age)})
		if missing.Action != ignore && unchanged.Action == ignore || missing.Action == ignore && missing.After < unchanged.After {
			t.Fatalf("seen for %s: missing %+v, unchanged %+v", age, missing, unchanged)
		}
	}
}

func TestLive(t *testing.T) {
	now := time.Now()
	v := View{Self: Holder{Replica: "b", Term: 1}, Now: now, LeaseDuration: 15 * time.Second, Leases: map[string]Lease{
		"a": {Replica: "a", Held: true, Since: now.Add(-14 * time.Second)},
		"b": {Replica: "b", Held: false, Since: now.Add(-time.Hour)}, // its own, observed before it renewed
		"c": {Replica: "c", Held: true, Since: now.Add(-15 * time.Second)},
		"d": {Replica: "d", Held: false, Since: now},
		"e": {Replica: "e", Missing: true, Since: now},
	}}
	if got := v.Live(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("Live = %v, want [a b]", got)
	}
}

// keyFor finds a set key that hashes to want among replicas.
func keyFor(t *testing.T, want string, replicas []string) string {
	t.Helper()
	for i := range 100 {
		key := "ns/set-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if Target(key, replicas) == want {
			return key
		}
	}
	t.Fatalf("no key hashes to %s", want)
	return ""
}

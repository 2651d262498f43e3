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

// Package windows decides when a set may be applied: delivery windows as
// Argo CD writes sync windows, a kind (Allow or Deny), a cron schedule that
// opens the window, how long it stays open, and the time zone the schedule
// is read in. The package is pure: the caller passes the time.
package windows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Kind says whether an open window allows applies or denies them.
type Kind string

const (
	// Allow windows, when a set declares any, are the only times it applies.
	Allow Kind = "Allow"
	// Deny windows are times it never applies; Deny wins over Allow.
	Deny Kind = "Deny"
)

// MaxDuration bounds how long one window stays open: a month covers a
// holiday freeze, and keeps the search for a window's end short.
const MaxDuration = 31 * 24 * time.Hour

// maxStarts bounds the starts followed to find where overlapping openings
// of one window end; a window open longer is taken as not closing.
const maxStarts = 1000

// maxChanges bounds the changes of single windows looked through for a
// change of the decision.
const maxChanges = 64

// parser reads standard five-field cron, and descriptors such as @daily,
// as Argo CD does. The time zone is the window's own field, never a
// CRON_TZ= prefix.
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Window is one parsed delivery window.
type Window struct {
	Kind     Kind
	Schedule string
	Duration time.Duration
	Location *time.Location
	starts   cron.Schedule
}

// Parse reads one window. timeZone is an IANA name; empty means UTC.
func Parse(kind Kind, schedule string, duration time.Duration, timeZone string) (Window, error) {
	if kind != Allow && kind != Deny {
		return Window{}, fmt.Errorf("kind %q is neither Allow nor Deny", kind)
	}
	if duration <= 0 || duration > MaxDuration {
		return Window{}, fmt.Errorf("duration %s is not between 0 and %s", duration, MaxDuration)
	}
	loc, err := location(timeZone)
	if err != nil {
		return Window{}, err
	}
	if strings.Contains(schedule, "TZ=") {
		return Window{}, errors.New("schedule " + quote(schedule) + " names a time zone: write it in timeZone")
	}
	if strings.HasPrefix(strings.TrimSpace(schedule), "@every") {
		// @every counts from whenever it is asked, so it opens no window at a known time.
		return Window{}, errors.New("schedule " + quote(schedule) + " is not anchored to the clock: write a cron expression such as 0 * * * *")
	}
	starts, err := parser.Parse(schedule)
	if err != nil {
		return Window{}, fmt.Errorf("schedule %s is not a cron expression of five fields (minute hour day-of-month month day-of-week): %w",
			quote(schedule), err)
	}
	return Window{Kind: kind, Schedule: schedule, Duration: duration, Location: loc, starts: starts}, nil
}

// location loads an IANA time zone. "Local" is refused: it is whatever
// zone the operator's machine has, which a set cannot know.
func location(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if name == "Local" {
		return nil, errors.New(`time zone "Local" is the operator's machine's: name an IANA time zone such as Europe/Berlin`)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time zone %s is not an IANA time zone such as Europe/Berlin or UTC", quote(name))
	}
	return loc, nil
}

func quote(s string) string {
	const most = 64
	if len(s) > most {
		s = s[:most] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// String names the window as a person wrote it.
func (w Window) String() string {
	return fmt.Sprintf("%s window %q for %s (%s)", w.Kind, w.Schedule, w.Duration, w.Location)
}

// Open tells whether the window is open at t: it opened in (t-Duration, t].
// Schedules are read in the window's zone, so that across a change of
// daylight saving time "30 2 * * *" means 02:30 on the wall clock there; the
// duration is elapsed time.
func (w Window) Open(t time.Time) bool {
	start := w.starts.Next(t.In(w.Location).Add(-w.Duration))
	return !start.IsZero() && !start.After(t)
}

// MaxSteps bounds the work of one decision: the cron schedules read, each
// the next start of one window after a time (about a microsecond each).
// Whether windows allow applies now takes one step a window; the search
// for when that changes takes the rest, and stops where this bound is
// reached: the decision stays exact, only its next change is unknown. A
// tenant's costliest windows otherwise took seconds of CPU a reconcile.
const MaxSteps = 10_000

// search is one decision's walk through the schedules, with the steps it
// has left.
type search struct{ left int }

func newSearch() *search { return &search{left: MaxSteps} }

// exhausted tells whether the search used up its steps.
func (s *search) exhausted() bool { return s.left <= 0 }

// start is w's first start after t, one step.
func (s *search) start(w Window, t time.Time) time.Time {
	s.left--
	return w.starts.Next(t)
}

// change is when the window next opens or closes after t: closes when it
// is open, following openings that overlap; zero when not within reach or
// the search is out of steps.
func (s *search) change(w Window, t time.Time) time.Time {
	local := t.In(w.Location)
	if !w.Open(t) {
		return s.start(w, local)
	}
	start := s.start(w, local.Add(-w.Duration))
	end := start.Add(w.Duration)
	for range maxStarts {
		if s.exhausted() {
			return time.Time{}
		}
		next := s.start(w, start)
		if next.IsZero() || next.After(end) {
			return end
		}
		start, end = next, next.Add(w.Duration)
	}
	return time.Time{}
}

// Decision is what a set's windows say at one time.
type Decision struct {
	// Allowed is true when the set may apply and prune.
	Allowed bool
	// By is the window that decides: the open Deny window, or the open
	// Allow window; nil when none is open, or none is declared.
	By *Window
	// Next is when Allowed changes, in the zone of the window whose change
	// it is; zero when no window is declared or none changes within reach.
	Next time.Time
	// Unsearched is true when the search for Next stopped at MaxSteps:
	// Allowed is exact, Next unknown.
	Unsearched bool
}

// Decide says whether windows allow applies at t: not while a Deny window
// is open, and, where any Allow window is declared, only while one is.
func Decide(windows []Window, t time.Time) Decision {
	s := newSearch()
	d := s.decide(windows, t)
	d.Unsearched = s.exhausted()
	return d
}

func (s *search) decide(windows []Window, t time.Time) Decision {
	d := decideAt(windows, t)
	if len(windows) == 0 {
		return d
	}
	d.Next = s.nextChange(windows, t, d.Allowed)
	return d
}

func decideAt(windows []Window, t time.Time) Decision {
	var allow *Window
	declaresAllow := false
	for i := range windows {
		w := &windows[i]
		switch {
		case w.Kind == Deny && w.Open(t):
			return Decision{Allowed: false, By: w}
		case w.Kind == Allow:
			declaresAllow = true
			if allow == nil && w.Open(t) {
				allow = w
			}
		}
	}
	return Decision{Allowed: allow != nil || !declaresAllow, By: allow}
}

// nextChange steps through the windows' own openings and closings until
// the decision differs from allowed.
func (s *search) nextChange(windows []Window, t time.Time, allowed bool) time.Time {
	for range maxChanges {
		var at time.Time
		for _, w := range windows {
			if c := s.change(w, t); !c.IsZero() && (at.IsZero() || c.Before(at)) {
				at = c
			}
		}
		if at.IsZero() || s.exhausted() {
			return time.Time{}
		}
		if decideAt(windows, at).Allowed != allowed {
			return at
		}
		t = at
	}
	return time.Time{}
}

// DecideAll says whether every group of windows allows applies at t: each
// group is decided on its own, so that one group's Allow windows cannot
// widen another's. Next is when all groups next allow (when held), or when
// the first one next holds (when allowed); zero when not within reach. All
// groups together take at most MaxSteps.
func DecideAll(groups [][]Window, t time.Time) Decision {
	s := newSearch()
	d := s.decideAll(groups, t)
	d.Unsearched = s.exhausted()
	return d
}

func (s *search) decideAll(groups [][]Window, t time.Time) Decision {
	first := Decision{Allowed: true}
	for _, g := range groups {
		d := s.decide(g, t)
		if !d.Allowed {
			return Decision{By: d.By, Next: s.allAllow(groups, d.Next)}
		}
		if first.By == nil {
			first.By = d.By
		}
		if !d.Next.IsZero() && (first.Next.IsZero() || d.Next.Before(first.Next)) {
			first.Next = d.Next
		}
	}
	return first
}

// allAllow is the first time from t on at which every group allows.
func (s *search) allAllow(groups [][]Window, t time.Time) time.Time {
	for range maxChanges {
		if t.IsZero() || s.exhausted() {
			return time.Time{}
		}
		later := t
		for _, g := range groups {
			if d := s.decide(g, t); !d.Allowed {
				later = d.Next
				break
			}
		}
		if later.Equal(t) {
			return t
		}
		t = later
	}
	return time.Time{}
}

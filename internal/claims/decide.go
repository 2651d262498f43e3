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
	"slices"
	"time"
)

// Lease is what one replica observed of a replica's Lease.
type Lease struct {
	Replica string
	// Term is the Lease's leaseTransitions: it grows each time the replica
	// takes its Lease again after a lapse, and when the Lease is released
	// or fenced.
	Term int64
	// Held is true while the Lease names its replica as holder; a replica
	// that stops releases it, and a replica that takes over fences it, by
	// clearing the holder and raising the term.
	Held bool
	// Missing is true when the Lease was not found.
	Missing bool
	// Since is when, on the observer's own clock, it first saw this version
	// of the Lease (or its absence). Durations are measured from there, never
	// from the times written in the Lease, so clocks need not agree, only tick
	// at about the same rate.
	Since time.Time
}

// View is one replica's picture of the replicas at a moment.
type View struct {
	// Self is this replica in its current term; zero while it holds no Lease,
	// and then it does nothing.
	Self Holder
	// Leases are the replicas' Leases by replica, as last observed.
	Leases map[string]Lease
	// Started is when the observer began observing: a Lease it never saw
	// counts as missing since then.
	Started time.Time
	Now     time.Time
	// LeaseDuration is how long a Lease not renewed stays valid; Margin is
	// added before another replica may end its term, for requests already
	// sent and for clocks that tick at slightly different rates.
	LeaseDuration, Margin time.Duration
}

// Live are the replicas that renewed their Lease within LeaseDuration, and
// this one, sorted.
func (v View) Live() []string {
	var live []string
	for name, l := range v.Leases {
		if l.Held && !l.Missing && v.Now.Sub(l.Since) < v.LeaseDuration && name != v.Self.Replica {
			live = append(live, name)
		}
	}
	if !v.Self.IsZero() {
		live = append(live, v.Self.Replica)
	}
	slices.Sort(live)
	return live
}

// Action is what a replica does with a set.
type Action int

const (
	// ignore means the set is another replica's, or nobody's to take yet.
	ignore Action = iota
	// Act means the set names this replica's term and hashes to it: reconcile.
	Act
	// Claim means the set names nobody and hashes to this replica: write Self
	// on it, conditionally on the version read, then reconcile.
	Claim
	// HandOver means the set names this replica but hashes to To: write To on
	// it, conditionally, and do nothing else with it.
	HandOver
	// Fence means the set hashes to this replica, and names a term whose Lease
	// was not renewed for LeaseDuration+Margin: end that term on its Lease
	// (clear the holder, conditionally), then decide again.
	Fence
	// TakeOver means the set hashes to this replica and names a term that is
	// over: write Self on it, conditionally, then reconcile.
	TakeOver
)

func (a Action) String() string {
	return [...]string{"ignore", "Act", "Claim", "HandOver", "Fence", "TakeOver"}[a]
}

// Decision is what Decide asks for.
type Decision struct {
	Action Action
	// To is the owner HandOver writes.
	To Holder
	// Fenced is the Lease Fence ends.
	Fenced Lease
	// After, when positive, is when to decide again: the named owner's
	// term can be ended then if it is still not renewed.
	After time.Duration
}

// Decide says what this replica does with the set key that names owner
// (zero when it names none, or nothing readable).
func Decide(key string, named Holder, v View) Decision {
	if v.Self.IsZero() {
		return Decision{Action: ignore}
	}
	target := Target(key, v.Live())
	switch {
	case named == v.Self && target == v.Self.Replica:
		return Decision{Action: Act}
	case named == v.Self, named.Replica == v.Self.Replica && named.Term > v.Self.Term && target != v.Self.Replica:
		// A later term of this replica's name than it holds is from before
		// its Lease was deleted and created again: nobody holds it, and the
		// target, seeing a lower term on the Lease, would wait for it.
		return Decision{Action: HandOver, To: Holder{Replica: target, Term: v.Leases[target].Term}}
	case target != v.Self.Replica:
		return Decision{Action: ignore}
	case named.IsZero():
		return Decision{Action: Claim}
	}
	over, lease, wait := v.termOver(named)
	switch {
	case over:
		return Decision{Action: TakeOver}
	case wait > 0:
		return Decision{Action: ignore, After: wait}
	case !lease.Missing && lease.Term < named.Term:
		return Decision{Action: ignore, After: v.LeaseDuration} // wait to observe the named term
	case !lease.Missing:
		return Decision{Action: Fence, Fenced: lease}
	}
	return Decision{Action: TakeOver} // missing for LeaseDuration+Margin
}

// termOver reports whether the named term can no longer act; otherwise the
// Lease that holds it and how long until it could be ended (0: now).
func (v View) termOver(named Holder) (bool, Lease, time.Duration) {
	if named.Replica == v.Self.Replica {
		return true, Lease{}, 0 // an earlier term of this replica, which ended it, or one from before its Lease was deleted
	}
	lease, seen := v.Leases[named.Replica]
	if !seen {
		lease = Lease{Replica: named.Replica, Missing: true, Since: v.Started}
	}
	// A later term, or the named term released or fenced. An earlier term
	// is an old observation: the set was written after the observer looked.
	if !lease.Missing && (lease.Term > named.Term || lease.Term == named.Term && !lease.Held) {
		return true, lease, 0
	}
	return false, lease, max(0, v.LeaseDuration+v.Margin-v.Now.Sub(lease.Since))
}

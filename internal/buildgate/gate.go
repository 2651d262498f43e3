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

// Package buildgate lets a few kustomize builds of the operator run at
// once and queues the others fairly between tenants: the waiters of each
// line (a namespace) queue first come, first served, and the lines take
// turns, as the sets of a work queue do (internal/fairqueue). A tenant with
// ten slow builds queued delays another tenant's one build by one build,
// not by ten. A wait is the doing of others, so it does not count against
// the waiting set's reconcile budget (timebudget.Pause).
package buildgate

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/applyset-operator/applyset-operator/internal/timebudget"
)

// DefaultMaxWait bounds a wait for a slot: five builds of the longest a
// build may take (a minute), so that a worker a set holds while it waits
// comes back, and the set tries again later, with backoff.
const DefaultMaxWait = 5 * time.Minute

// Gate hands out a fixed number of slots, one a build.
type Gate struct {
	slots   int
	maxWait time.Duration
	clock   clock.Clock

	mu    sync.Mutex
	free  int
	lines map[string][]*waiter
	// turns are the lines with waiters, in the order of their next turn.
	turns []string
}

// waiter is one Enter waiting for a slot.
type waiter struct {
	line string
	// granted is closed when the gate hands the waiter a slot.
	granted chan struct{}
}

// New returns a Gate of slots slots (at least one) whose waits last at most
// maxWait.
func New(slots int, maxWait time.Duration) *Gate {
	slots = max(slots, 1)
	return &Gate{slots: slots, maxWait: maxWait, clock: clock.RealClock{}, free: slots, lines: map[string][]*waiter{}}
}

// Slots is how many builds the gate lets run at once.
func (g *Gate) Slots() int { return g.slots }

// QueuedError is a wait for a slot that lasted as long as a gate lets one.
type QueuedError struct {
	Waited time.Duration
	Slots  int
}

func (e *QueuedError) Error() string {
	return fmt.Sprintf("waited %s for a build slot: the operator runs %d kustomize builds at once (--max-builds), "+
		"and other sets' builds, the namespaces taking turns, held them all that time", e.Waited, e.Slots)
}

// Enter takes a slot for a build of line, waiting its turn when none is
// free, and returns the function that gives it back. While it waits, the
// budget of ctx is paused. It fails, leaving the queue and holding no slot,
// when ctx ends first (its cause) or the wait reaches the gate's bound (a
// *QueuedError).
func (g *Gate) Enter(ctx context.Context, line string) (leave func(), err error) {
	g.mu.Lock()
	if g.free > 0 { // no one waits while a slot is free
		g.free--
		g.mu.Unlock()
		return sync.OnceFunc(g.leave), nil
	}
	w := &waiter{line: line, granted: make(chan struct{})}
	g.queue(w)
	g.mu.Unlock()

	resume := timebudget.Pause(ctx)
	defer resume()
	timer := g.clock.NewTimer(g.maxWait)
	defer timer.Stop()
	select {
	case <-w.granted:
		return sync.OnceFunc(g.leave), nil
	case <-ctx.Done():
		err = context.Cause(ctx)
	case <-timer.C():
		err = &QueuedError{Waited: g.maxWait, Slots: g.slots}
	}
	g.mu.Lock()
	queued := g.dequeue(w)
	g.mu.Unlock()
	if !queued { // handed a slot as it gave up: the slot goes on
		g.leave()
	}
	return nil, err
}

// leave gives a slot back: to the first waiter of the line whose turn it
// is, which then waits for its next turn behind the others, or to the free.
func (g *Gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.turns) == 0 {
		g.free++
		return
	}
	line := g.turns[0]
	g.turns = g.turns[1:]
	waiters := g.lines[line]
	w := waiters[0]
	waiters[0] = nil
	if waiters = waiters[1:]; len(waiters) == 0 {
		delete(g.lines, line)
	} else {
		g.lines[line] = waiters
		g.turns = append(g.turns, line)
	}
	close(w.granted)
}

// queue puts w at the end of its line; a line that had no waiters takes
// its turn after every line waiting. g.mu is held.
func (g *Gate) queue(w *waiter) {
	if len(g.lines[w.line]) == 0 {
		g.turns = append(g.turns, w.line)
	}
	g.lines[w.line] = append(g.lines[w.line], w)
}

// dequeue takes w out of its line, telling whether it was still there
// (not yet handed a slot). g.mu is held.
func (g *Gate) dequeue(w *waiter) bool {
	waiters := g.lines[w.line]
	i := slices.Index(waiters, w)
	if i < 0 {
		return false
	}
	if waiters = slices.Delete(waiters, i, i+1); len(waiters) > 0 {
		g.lines[w.line] = waiters
		return true
	}
	delete(g.lines, w.line)
	g.turns = slices.DeleteFunc(g.turns, func(line string) bool { return line == w.line })
	return true
}

// waiting is how many Enters wait for a slot.
func (g *Gate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, waiters := range g.lines {
		n += len(waiters)
	}
	return n
}

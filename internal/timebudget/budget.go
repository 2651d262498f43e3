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

// Package timebudget bounds how long a piece of work, such as one reconcile
// of a set, may run, through a context that ends when the work has run for
// its budget. The budget can be paused: a wait for something shared, such
// as a slot among the operator's kustomize builds, is the doing of others
// and does not count against the work that waits.
package timebudget

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// errSpent is the cause of a context whose budget ran out. It is a
// context.DeadlineExceeded, as the context's would be had its budget been
// a plain deadline.
var errSpent = fmt.Errorf("time budget spent: %w", context.DeadlineExceeded)

// budget is the running time left to a context.
type budget struct {
	clock clock.WithDelayedExecution
	end   context.CancelCauseFunc

	mu     sync.Mutex
	left   time.Duration // when the timer last stopped
	since  time.Time     // when it last started
	timer  clock.Timer   // nil while paused or ended
	paused int
	ended  bool
}

type key struct{}

// New returns a copy of parent that ends, with errSpent as its cause, once
// it has run for d, not counting the time it is paused (Pause). The
// returned cancel ends it, and releases its timer, as context.WithCancel's.
func New(parent context.Context, d time.Duration, clk clock.WithDelayedExecution) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	b := &budget{clock: clk, end: cancel, left: d}
	b.mu.Lock()
	b.run()
	b.mu.Unlock()
	return context.WithValue(ctx, key{}, b), func() {
		b.stop()
		cancel(nil)
	}
}

// Spent tells whether ctx, or the context of New it derives from, ended
// because its budget ran out.
func Spent(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errSpent)
}

// Pause stops the clock of ctx's budget until resume is called; pauses
// nest. A context without a budget has nothing to pause. Calling resume
// more than once resumes once.
func Pause(ctx context.Context) (resume func()) {
	b, ok := ctx.Value(key{}).(*budget)
	if !ok {
		return func() {}
	}
	b.pause()
	var once sync.Once
	return func() { once.Do(b.resume) }
}

// run starts the timer on what is left. b.mu is held.
func (b *budget) run() {
	if b.left <= 0 {
		b.end(errSpent)
		return
	}
	b.since = b.clock.Now()
	// The timer's function takes no lock: a fake clock calls it with its own
	// held, which pause may wait for with b.mu held.
	b.timer = b.clock.AfterFunc(b.left, func() { b.end(errSpent) })
}

func (b *budget) pause() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.paused++
	if b.paused == 1 && b.timer != nil {
		b.timer.Stop()
		b.timer = nil
		b.left -= b.clock.Since(b.since)
	}
}

func (b *budget) resume() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.paused--
	if b.paused == 0 && !b.ended {
		b.run()
	}
}

func (b *budget) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ended = true
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
}

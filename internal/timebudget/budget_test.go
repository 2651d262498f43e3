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

package timebudget

import (
	"context"
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestBudgetEndsTheContextOnceSpent(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	ctx, cancel := New(context.Background(), 10*time.Second, clk)
	defer cancel()
	clk.Step(10*time.Second - time.Nanosecond)
	if ctx.Err() != nil {
		t.Fatalf("ended before its budget: %v", context.Cause(ctx))
	}
	clk.Step(time.Nanosecond)
	if ctx.Err() == nil || !Spent(ctx) || !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		t.Fatalf("err %v, cause %v: want the budget spent", ctx.Err(), context.Cause(ctx))
	}
}

func TestBudgetDoesNotRunWhilePaused(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	ctx, cancel := New(context.Background(), 10*time.Second, clk)
	defer cancel()
	clk.Step(3 * time.Second)
	resume := Pause(ctx)
	derived, cancelDerived := context.WithCancel(ctx)
	defer cancelDerived()
	inner := Pause(derived) // a context derived from it pauses the same budget
	clk.Step(time.Hour)
	inner()
	clk.Step(time.Hour)
	if ctx.Err() != nil || clk.HasWaiters() {
		t.Fatalf("paused, the budget ran (cause %v, timers %d)", context.Cause(ctx), clk.Waiters())
	}
	resume()
	resume() // once only
	clk.Step(7*time.Second - time.Nanosecond)
	if ctx.Err() != nil {
		t.Fatalf("the time paused counted: %v", context.Cause(ctx))
	}
	clk.Step(time.Nanosecond)
	if !Spent(ctx) {
		t.Fatalf("cause %v: want the budget spent at 10s of running time", context.Cause(ctx))
	}
}

func TestBudgetEndsAtOnceWhenResumedSpent(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	ctx, cancel := New(context.Background(), time.Second, clk)
	defer cancel()
	resume := Pause(ctx)
	clk.Step(time.Second) // paused: not counted
	if ctx.Err() != nil {
		t.Fatal("ended while paused")
	}
	resume()
	clk.Step(time.Second)
	if !Spent(ctx) {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
}

func TestBudgetIsNotWhatEndsOtherwise(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	parent, stop := context.WithCancel(context.Background())
	ctx, cancel := New(parent, time.Second, clk)
	defer cancel()
	stop()
	if ctx.Err() == nil || Spent(ctx) {
		t.Fatalf("err %v, cause %v: want the parent's end", ctx.Err(), context.Cause(ctx))
	}

	clk = clocktesting.NewFakeClock(time.Now())
	ctx, cancel = New(context.Background(), time.Second, clk)
	cancel()
	if ctx.Err() == nil || Spent(ctx) || clk.HasWaiters() {
		t.Fatalf("cancelled: err %v, cause %v, timers %d", ctx.Err(), context.Cause(ctx), clk.Waiters())
	}
	Pause(ctx)() // after the end, resuming starts no timer
	if clk.HasWaiters() {
		t.Fatal("a timer runs for an ended budget")
	}
}

func TestPauseWithoutBudget(t *testing.T) {
	ctx := context.Background()
	Pause(ctx)()
	if ctx.Err() != nil {
		t.Fatal("a context without a budget ended")
	}
}

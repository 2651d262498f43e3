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

package buildgate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/applyset-operator/applyset-operator/internal/timebudget"
)

// enter takes a slot for line "a", failing the test when it cannot.
func enter(t *testing.T, g *Gate) func() {
	t.Helper()
	leave, err := g.Enter(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	return leave
}

// queued calls enter in a goroutine and returns once it waits in the gate.
func queued(t *testing.T, g *Gate, enter func()) {
	t.Helper()
	before := g.waiting()
	go enter()
	for deadline := time.Now().Add(10 * time.Second); g.waiting() == before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the waiter never queued")
		}
	}
}

func (g *Gate) freeSlots() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.free
}

func TestGateTakesTheLinesInTurn(t *testing.T) {
	g := New(1, time.Hour)
	leave := enter(t, g)
	var mu sync.Mutex
	var order []string
	var done sync.WaitGroup
	wait := func(line string, i int) {
		done.Add(1)
		queued(t, g, func() {
			defer done.Done()
			leave, err := g.Enter(context.Background(), line)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, fmt.Sprintf("%s%d", line, i))
			mu.Unlock()
			leave()
		})
	}
	for i := range 10 {
		wait("a", i)
	}
	wait("b", 0)
	leave()
	done.Wait()
	want := []string{"a0", "b0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("served %v, want %v: b within one turn of a's", order, want)
	}
	if g.freeSlots() != 1 {
		t.Fatalf("%d slots free after every build, want 1", g.freeSlots())
	}
}

func TestGateHonoursItsSlots(t *testing.T) {
	if New(0, time.Hour).Slots() != 1 {
		t.Fatal("a gate of no slots would build nothing")
	}
	g := New(3, time.Hour)
	var mu sync.Mutex
	running, most := 0, 0
	var done sync.WaitGroup
	for i := range 30 {
		done.Go(func() {
			leave, err := g.Enter(context.Background(), fmt.Sprint(i%4))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			leave()
			leave() // once only
		})
	}
	done.Wait()
	if most != 3 || g.freeSlots() != 3 {
		t.Fatalf("%d builds at once and %d slots free after, want 3 and 3", most, g.freeSlots())
	}
}

func TestGateWaiterThatGivesUpHoldsNoSlot(t *testing.T) {
	g := New(1, time.Hour)
	leave := enter(t, g)
	ctx, cancel := context.WithCancelCause(context.Background())
	gaveUp := make(chan error)
	queued(t, g, func() {
		_, err := g.Enter(ctx, "b")
		gaveUp <- err
	})
	granted := make(chan func())
	queued(t, g, func() {
		leave, _ := g.Enter(context.Background(), "c")
		granted <- leave
	})
	stopping := errors.New("the operator stops")
	cancel(stopping)
	if err := <-gaveUp; !errors.Is(err, stopping) {
		t.Fatalf("got %v, want the context's cause", err)
	}
	if g.waiting() != 1 {
		t.Fatalf("%d waiting, want the other one", g.waiting())
	}
	leave()
	(<-granted)()
	if g.freeSlots() != 1 || g.waiting() != 0 {
		t.Fatalf("%d free, %d waiting: want the slot back", g.freeSlots(), g.waiting())
	}
}

func TestGateBoundsAWait(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	g := New(1, 5*time.Minute)
	g.clock = clk
	leave := enter(t, g)
	gaveUp := make(chan error)
	queued(t, g, func() {
		_, err := g.Enter(context.Background(), "b")
		gaveUp <- err
	})
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	clk.Step(5 * time.Minute)
	err := <-gaveUp
	var queuedErr *QueuedError
	if !errors.As(err, &queuedErr) || queuedErr.Error() != "waited 5m0s for a build slot: the operator runs 1 kustomize builds "+
		"at once (--max-builds), and other sets' builds, the namespaces taking turns, held them all that time" {
		t.Fatalf("got %v, want a *QueuedError", err)
	}
	leave()
	if g.freeSlots() != 1 || g.waiting() != 0 {
		t.Fatalf("%d free, %d waiting: want the slot back", g.freeSlots(), g.waiting())
	}
}

func TestGateWaitDoesNotCountAgainstTheBudget(t *testing.T) {
	budgetClock := clocktesting.NewFakeClock(time.Now())
	ctx, cancel := timebudget.New(context.Background(), 10*time.Second, budgetClock)
	defer cancel()
	g := New(1, time.Hour)
	leave := enter(t, g)
	entered := make(chan error)
	queued(t, g, func() {
		leave, err := g.Enter(ctx, "b")
		if err == nil {
			defer leave()
		}
		entered <- err
	})
	budgetClock.Step(time.Hour)
	if ctx.Err() != nil {
		t.Fatalf("the wait counted against the budget: %v", context.Cause(ctx))
	}
	leave()
	if err := <-entered; err != nil {
		t.Fatal(err)
	}
	budgetClock.Step(10 * time.Second)
	if !timebudget.Spent(ctx) {
		t.Fatalf("cause %v: the budget runs again once the wait is over", context.Cause(ctx))
	}
}

// TestGateUnderChurn has builds of three lines come, go and give up at
// random: every slot comes back.
func TestGateUnderChurn(t *testing.T) {
	g := New(2, time.Hour)
	var done sync.WaitGroup
	for i := range 200 {
		done.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(3000))*time.Microsecond)
			defer cancel()
			if leave, err := g.Enter(ctx, fmt.Sprint(i%3)); err == nil {
				time.Sleep(time.Duration(rand.IntN(500)) * time.Microsecond)
				leave()
			}
		})
	}
	done.Wait()
	if g.freeSlots() != 2 || g.waiting() != 0 || len(g.turns) != 0 {
		t.Fatalf("%d free, %d waiting, turns %v: want every slot back", g.freeSlots(), g.waiting(), g.turns)
	}
}

func TestDefaultSlots(t *testing.T) {
	const footprint = 320 << 20 // 256 MiB of heap and the runtime's
	for _, tt := range []struct {
		memory int64
		want   int
	}{{0, 1}, {512 << 20, 1}, {1 << 30, 1}, {2 << 30, 3}, {4 << 30, 4}, {64 << 30, 4}} {
		if got := slotsFor(tt.memory, footprint); got != tt.want {
			t.Errorf("slotsFor(%d MiB) = %d, want %d", tt.memory>>20, got, tt.want)
		}
	}
	dir := t.TempDir()
	for content, want := range map[string]int64{"max\n": 0, "536870912\n": 512 << 20, "": 0} {
		file := filepath.Join(dir, "memory.max")
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := containerMemory(file); got != want {
			t.Errorf("containerMemory(%q) = %d, want %d", content, got, want)
		}
	}
	if got := containerMemory(filepath.Join(dir, "none")); got != 0 {
		t.Errorf("no file: %d", got)
	}
}

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

package fairqueue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/util/workqueue"
)

// item is "namespace/name".
func keyOf(item string) string {
	ns, _, _ := strings.Cut(item, "/")
	return ns
}

func TestStoreOrder(t *testing.T) {
	tests := []struct {
		name   string
		pushes []string
		want   []string
	}{
		{"one tenant is first in, first out", []string{"a/1", "a/2", "a/3"}, []string{"a/1", "a/2", "a/3"}},
		{"a tenant that queued many waits its turn behind one that queued one",
			[]string{"big/1", "big/2", "big/3", "big/4", "small/1"},
			[]string{"big/1", "small/1", "big/2", "big/3", "big/4"}},
		{"tenants take turns in the order they arrived",
			[]string{"a/1", "a/2", "b/1", "b/2", "c/1"},
			[]string{"a/1", "b/1", "c/1", "a/2", "b/2"}},
		{"nothing queued, nothing popped", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(keyOf)
			for _, p := range tt.pushes {
				s.Push(p)
			}
			var got []string
			for s.Len() > 0 {
				got = append(got, s.Pop())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("popped %v, want %v", got, tt.want)
			}
		})
	}
}

// TestStoreInterleaved pushes and pops at random and checks every pop
// against the rules: each item once, each tenant's items in their order,
// and no tenant served twice while another waits.
func TestStoreInterleaved(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := New(keyOf)
	waiting := map[string][]string{} // tenant -> its items, in order
	// owed are, for each tenant, the tenants that were waiting when it was
	// last served and have not been served since.
	owed := map[string]map[string]bool{}
	next := 0
	for step := range 20000 {
		if s.Len() == 0 || rng.IntN(3) > 0 {
			tenant := fmt.Sprintf("t%d", rng.IntN(5))
			if rng.IntN(10) == 0 {
				tenant = "busy" // queues far more than the others
			}
			item := fmt.Sprintf("%s/%d", tenant, next)
			next++
			s.Push(item)
			waiting[tenant] = append(waiting[tenant], item)
			continue
		}
		item := s.Pop()
		tenant := keyOf(item)
		if len(waiting[tenant]) == 0 || waiting[tenant][0] != item {
			t.Fatalf("step %d: popped %s, want the first of %s's items %v", step, item, tenant, waiting[tenant])
		}
		waiting[tenant] = waiting[tenant][1:]
		for _, others := range owed {
			delete(others, tenant)
		}
		if len(owed[tenant]) > 0 {
			t.Fatalf("step %d: %s served again before %v, which were waiting at its last turn", step, tenant, owed[tenant])
		}
		owed[tenant] = map[string]bool{}
		for other, items := range waiting {
			if other != tenant && len(items) > 0 {
				owed[tenant][other] = true
			}
		}
	}
	if s.Len() != countAll(waiting) {
		t.Fatalf("Len %d, want %d", s.Len(), countAll(waiting))
	}
}

func countAll(m map[string][]string) int {
	n := 0
	for _, items := range m {
		n += len(items)
	}
	return n
}

// TestStoreBound: with one tenant's thousand items queued, another
// tenant's item queued last is handed out second.
func TestStoreBound(t *testing.T) {
	s := New(keyOf)
	for i := range 1000 {
		s.Push(fmt.Sprintf("big/%d", i))
	}
	s.Push("small/1")
	for i := 1; s.Len() > 0; i++ {
		if s.Pop() == "small/1" {
			if i != 2 {
				t.Fatalf("the other tenant's item came out %dth, want 2nd", i)
			}
			return
		}
	}
	t.Fatal("the other tenant's item never came out")
}

// TestInWorkQueue: inside client-go's queue, an item added while queued is
// queued once, and the order is the Store's.
func TestInWorkQueue(t *testing.T) {
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "fair", Queue: New(keyOf)})
	defer q.ShutDown()
	for _, item := range []string{"big/1", "big/2", "big/1", "big/3", "small/1"} {
		q.Add(item)
	}
	if q.Len() != 4 {
		t.Fatalf("Len %d, want 4: an item added twice is queued once", q.Len())
	}
	var got []string
	for q.Len() > 0 {
		item, _ := q.Get()
		got = append(got, item)
		q.Done(item)
	}
	if want := []string{"big/1", "small/1", "big/2", "big/3"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

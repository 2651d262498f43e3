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

package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/controllers/parents"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

const (
	kinds          = 10
	membersPerKind = 100
)

var (
	kindsOnce  sync.Once
	benchKinds []string
)

// tenKinds installs the ten CRDs the large sets use, once.
func tenKinds(ctx context.Context, b *testing.B) []string {
	kindsOnce.Do(func() {
		for i := range kinds {
			kind := fmt.Sprintf("Load%d", i)
			createKind(ctx, b, kind)
			benchKinds = append(benchKinds, kind)
		}
	})
	return benchKinds
}

// largeSet creates 1,000 members of setID, 100 of each of the ten kinds.
func largeSet(ctx context.Context, b *testing.B, ns, setID string) {
	for _, kind := range tenKinds(ctx, b) {
		for i := range membersPerKind {
			createMember(ctx, b, kind, ns, fmt.Sprintf("m%d", i), setID)
		}
	}
}

// kubectlParent creates a Secret parent as kubectl writes it, with the given hint.
func kubectlParent(ctx context.Context, b *testing.B, ns, name, hint string) string {
	id, err := newKubectlParent(ctx, ns, name, hint)
	if err != nil {
		b.Fatal(err)
	}
	return id
}

// newKubectlParent is kubectlParent for goroutines other than the benchmark's.
func newKubectlParent(ctx context.Context, ns, name, hint string) (string, error) {
	key := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: ns, Name: name}
	parent := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels:      map[string]string{applyset.IDLabel: key.ID()},
		Annotations: map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: hint},
	}}
	return key.ID(), k8sClient.Create(ctx, parent)
}

// BenchmarkSteadyStateRequests counts the API requests the operator makes while
// nothing changes, with one verified parent of 1,000 members across 10 kinds.
// Each iteration is a 2-second idle window; the goal is 0 requests.
func BenchmarkSteadyStateRequests(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	ns := namespace(ctx, b, "steady-")
	gks := sets.New[schema.GroupKind]()
	for _, kind := range tenKinds(ctx, b) {
		gks.Insert(schema.GroupKind{Group: "bench.example.com", Kind: kind})
	}
	setID := kubectlParent(ctx, b, ns, "steady", applyset.FormatGroupKinds(gks))
	largeSet(ctx, b, ns, setID)

	count := startOperator(b, parents.Options{OrphanPolicy: parents.OrphanReport, Resync: time.Hour})
	// Settled: no request for three seconds (caches synced, the parent verified and reported).
	last, quietSince := count.Load(), time.Now()
	waitFor(b, 2*time.Minute, func() bool {
		if now := count.Load(); now != last {
			last, quietSince = now, time.Now()
		}
		return time.Since(quietSince) > 3*time.Second
	})

	b.ResetTimer()
	start := count.Load()
	for b.Loop() {
		time.Sleep(2 * time.Second)
	}
	b.StopTimer()
	b.ReportMetric(float64(count.Load()-start)/float64(b.N), "requests/idle-2s")
	b.ReportMetric(float64(last), "requests-to-settle")
}

// BenchmarkHintLatency measures the time from a member of a kind new to the set
// appearing to the hint of its kubectl parent naming that kind, with
// --repair-tooling=kubectl. The kind's CRD is installed, and the member created,
// before the clock starts.
func BenchmarkHintLatency(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	ns := namespace(ctx, b, "latency-")
	setID := kubectlParent(ctx, b, ns, "latency", "")
	startOperator(b, parents.Options{RepairTooling: []string{"kubectl"}, OrphanPolicy: parents.OrphanReport, Resync: time.Hour})
	parent := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "latency"}}

	for b.Loop() {
		b.StopTimer()
		kind := uniqueKind("Fresh")
		createKind(ctx, b, kind)
		// The clock starts once the member exists: the test client's own
		// discovery of the new kind is not the operator's latency.
		createMember(ctx, b, kind, ns, "m", setID)
		b.StartTimer()
		want := schema.GroupKind{Group: "bench.example.com", Kind: kind}
		waitFor(b, time.Minute, func() bool {
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(parent), parent); err != nil {
				return false
			}
			gks, err := applyset.ParseGroupKinds(parent.Annotations[applyset.GroupKindsAnnotation])
			return err == nil && gks.Has(want)
		})
	}
}

// BenchmarkIndexMemoryPer1000Members reports the heap the membership index
// holds for 1,000 more members (10 kinds), measured as the live heap after
// they are indexed minus the live heap before they were created.
func BenchmarkIndexMemoryPer1000Members(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	tenKinds(ctx, b)
	disco, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	if err != nil {
		b.Fatal(err)
	}
	md, err := metadata.NewForConfig(cp.Config)
	if err != nil {
		b.Fatal(err)
	}
	idx := membership.New(membership.Options{Discovery: disco, Metadata: md})
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := idx.Start(runCtx); err != nil {
		b.Fatal(err)
	}
	waitFor(b, time.Minute, idx.HasSynced)

	var total uint64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		before := liveHeap()
		setID := fmt.Sprintf("applyset-memory%d-v1", i)
		largeSet(ctx, b, namespace(ctx, b, "memory-"), setID)
		waitFor(b, time.Minute, func() bool { return len(idx.Members(setID)) == kinds*membersPerKind })
		total += liveHeap() - before
		b.StartTimer()
	}
	b.ReportMetric(float64(total)/float64(b.N), "heap-bytes/1000-members")
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

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
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// BenchmarkScaleOneSet applies one set of each size BENCH_SET_SIZES names
// (default 1,000 and 10,000 objects; 100,000 where asked), declared in a
// gzip-compressed ConfigMap, and reports per size: the time to Ready beside
// the floor (the same ConfigMaps applied as the set's ServiceAccount, as
// many requests in flight), requests per object, the peak heap of this
// process (the operator; sampled every 50 ms) per object, the API server's
// CPU per object against the floor's, the chunks of its inventory and the
// size of the set's own object, a steady reconcile's writes, a prune of
// 10% (with its peak heap: it reads every member) and the deletion.
func BenchmarkScaleOneSet(b *testing.B) {
	controlPlane(b)
	sizes := envSizes(b, "BENCH_SET_SIZES", []int{1000, 10000})
	largest := 0
	for _, n := range sizes {
		largest = max(largest, n)
	}
	runSetOperator(b, applysets.Options{MaxObjects: largest})
	for _, n := range sizes {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			for b.Loop() {
				oneSetOfSize(b, n)
			}
		})
	}
}

// oneSetOfSize is one run of BenchmarkScaleOneSet with n objects.
func oneSetOfSize(b *testing.B, n int) {
	b.StopTimer()
	defer b.StartTimer()
	ctx := context.Background()
	ns, floorNS := namespace(ctx, b, "one-set-"), namespace(ctx, b, "one-set-floor-")
	source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "objects"},
		BinaryData: map[string][]byte{"objects.yaml.gz": gzipped(b, configMapsYAML(n))}}
	if err := k8sClient.Create(ctx, source); err != nil {
		b.Fatal(err)
	}
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "big"}}
	set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: source.Name}}
	set.Spec.Wait = ptr.To(false)

	peaks := sampleHeap("first-apply")
	stepsBefore := stepSums(b)
	before, cpuBefore := requestCounts(ctx, b), readCPU(ctx, b)
	start := time.Now()
	if err := k8sClient.Create(ctx, set); err != nil {
		b.Fatal(err)
	}
	waitSetReady(ctx, b, set, 30*time.Minute)
	ready := time.Since(start)
	cpu := readCPU(ctx, b).Sub(cpuBefore)
	requests := diffCounts(before, requestCounts(ctx, b), map[string]float64{"POST": 1})
	live, heap := peaks()
	b.Logf("first apply of %d objects, step by step: %s", n, stepTrace(stepsBefore, stepSums(b), 1))
	setBytes, err := json.Marshal(set)
	if err != nil {
		b.Fatal(err)
	}
	chunks := 0
	if set.Status.Inventory != nil {
		chunks = len(set.Status.Inventory.Chunks)
	}

	cpuBefore = readCPU(ctx, b)
	floor := applyFloor(ctx, b, impersonating(b, floorNS), apply.DefaultConcurrency, configMapObjects(n), floorNS)
	floorCPU := readCPU(ctx, b).Sub(cpuBefore)

	byResource := requestsByResource(ctx, b)
	retrigger(ctx, b, set, nil)
	steadyRequests := diffCounts(byResource, requestsByResource(ctx, b), map[string]float64{"PUT applysets": 1})
	steady := 0.0
	for key, v := range steadyRequests {
		verb, resource, _ := strings.Cut(key, " ")
		switch {
		case resource == "leases": // the API server renews its own identity Lease every 10 s
		case resource == "applysetinventories" && verb == "POST": // the dry-run probes of the inventory policy, each minute
		default:
			steady += writes(map[string]float64{verb: v})
		}
	}

	kept := n - n/10
	prunePeaks := sampleHeap("prune")
	pruneStart := time.Now()
	source.BinaryData["objects.yaml.gz"] = gzipped(b, configMapsYAML(kept))
	if err := k8sClient.Update(ctx, source); err != nil {
		b.Fatal(err)
	}
	if err := watchSet(ctx, set, 30*time.Minute, func() bool {
		return ptr.Deref(set.Status.MemberCount, 0) == int32(kept) && setIsReady(set)
	}); err != nil {
		b.Fatal(err)
	}
	pruned := time.Since(pruneStart)
	pruneLive, _ := prunePeaks()

	deleteStart := time.Now()
	if err := k8sClient.Delete(ctx, set); err != nil {
		b.Fatal(err)
	}
	waitFor(b, 30*time.Minute, func() bool {
		return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), &applyv1alpha1.ApplySet{}))
	})
	deleted := time.Since(deleteStart)

	b.Logf("one set of %d objects: Ready in %s, floor %s (ratio %.2f); requests %v (%.3f per object); peak live heap %d MiB (%d bytes per object), with garbage %d MiB; "+
		"API server CPU %s (%.2f of the floor's %s); %d chunks, the set's object %d KiB; a steady reconcile wrote %.0f times (%v); "+
		"pruning %d took %s (peak live heap %d MiB); deleting the set and its %d members %s",
		n, ready.Round(10*time.Millisecond), floor.Round(10*time.Millisecond), ready.Seconds()/floor.Seconds(), requests,
		sum(requests)/float64(n), live>>20, live/uint64(n), heap>>20, cpu.APIServer.Round(10*time.Millisecond),
		cpu.APIServer.Seconds()/floorCPU.APIServer.Seconds(), floorCPU.APIServer.Round(10*time.Millisecond),
		chunks, len(setBytes)>>10, steady, steadyRequests, n/10, pruned.Round(10*time.Millisecond), pruneLive>>20,
		kept, deleted.Round(10*time.Millisecond))
	b.ReportMetric(ready.Seconds(), "ready-s")
	b.ReportMetric(floor.Seconds(), "floor-s")
	b.ReportMetric(ready.Seconds()/floor.Seconds(), "floor-ratio")
	b.ReportMetric(sum(requests)/float64(n), "requests/object")
	b.ReportMetric(float64(live>>20), "peak-live-heap-MiB")
	b.ReportMetric(float64(live)/float64(n), "live-heap-bytes/object")
	b.ReportMetric(float64(heap>>20), "peak-heap-MiB")
	b.ReportMetric(cpu.APIServer.Seconds()/floorCPU.APIServer.Seconds(), "apiserver-cpu-ratio")
	b.ReportMetric(float64(len(setBytes)>>10), "set-object-KiB")
	b.ReportMetric(steady, "steady-writes")
	b.ReportMetric(pruned.Seconds(), "prune-10pct-s")
	b.ReportMetric(float64(pruneLive>>20), "prune-peak-live-heap-MiB")
	b.ReportMetric(deleted.Seconds(), "delete-s")
}

// steps are the steps of a reconcile in the order it takes them
// (applyset_operator_reconcile_step_seconds), and phases the parts of it
// before them whose requests are counted too
// (applyset_operator_reconcile_step_requests).
var (
	steps  = []string{"read", "plan-prune", "before-writes", "inspect", "check", "write", "prune", "narrow-hints", "chunks", "status"}
	phases = []string{"recheck", "check-parent", "compile-checks", "actor", "authority", "engine", "approval", "dependencies", "windows", "run"}
)

// stepFigures are the sums, by step, of the seconds and requests of the
// reconciles so far.
type stepFigures struct{ seconds, requests map[string]float64 }

// stepSums reads the seconds and requests of each step of the reconciles so far.
func stepSums(b *testing.B) stepFigures {
	seconds, err := testenv.HistogramSums("applyset_operator_reconcile_step_seconds", "step")
	if err != nil {
		b.Fatal(err)
	}
	requests, err := testenv.HistogramSums("applyset_operator_reconcile_step_requests", "step")
	if err != nil {
		b.Fatal(err)
	}
	return stepFigures{seconds, requests}
}

// stepTrace says what each step took and asked between two readings of
// stepSums, per set of sets: the run's steps, then the phases before them
// that made requests.
func stepTrace(before, after stepFigures, sets int) string {
	parts := make([]string, 0, len(steps)+len(phases))
	for _, step := range steps {
		parts = append(parts, fmt.Sprintf("%s %.2fs %.1f req", step, after.seconds[step]-before.seconds[step],
			(after.requests[step]-before.requests[step])/float64(sets)))
	}
	for _, phase := range phases {
		if n := (after.requests[phase] - before.requests[phase]) / float64(sets); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f req", phase, n))
		}
	}
	return strings.Join(parts, ", ")
}

// setIsReady is a set Ready at its generation.
func setIsReady(set *applyv1alpha1.ApplySet) bool {
	for _, c := range set.Status.Conditions {
		if c.Type == applyv1alpha1.ConditionReady {
			return c.Status == metav1.ConditionTrue && c.ObservedGeneration == set.Generation
		}
	}
	return false
}

// configMapObjects are n small ConfigMaps, as the floor applies them.
func configMapObjects(n int) []map[string]any {
	objs := make([]map[string]any, n)
	for i := range objs {
		objs[i] = map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i)}, "data": map[string]any{"k": "v"}}
	}
	return objs
}

// configMapsYAML is configMapObjects as a multi-document YAML stream.
func configMapsYAML(n int) []byte {
	var out strings.Builder
	for i := range n {
		fmt.Fprintf(&out, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d}\ndata: {k: v}\n---\n", i)
	}
	return []byte(out.String())
}

func gzipped(b *testing.B, data []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(data); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// sampleHeap samples this process's heap every 50 ms from now on; the
// returned function stops and returns the peaks above what is live now: of
// the live heap (as the last garbage collection marked it), and of the heap
// with the garbage not yet collected, which GOGC lets grow to about twice it.
// step names its heap profiles (profileHeap).
func sampleHeap(step string) (peaks func() (live, total uint64)) {
	base := liveHeap()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	var highestLive, highestTotal atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		ticker := time.NewTicker(50 * time.Millisecond)
		defer ticker.Stop()
		for {
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > highestLive.Load()+highestLive.Load()/20 {
				profileHeap(step, live)
			}
			highestLive.Store(max(highestLive.Load(), sample[0].Value.Uint64()))
			highestTotal.Store(max(highestTotal.Load(), sample[1].Value.Uint64()))
			select {
			case <-done:
				return
			case <-ticker.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		<-stopped
		return max(highestLive.Load(), base) - base, max(highestTotal.Load(), base) - base
	}
}

// profileHeap writes a heap profile of step to the file BENCH_HEAP_PROFILE
// names, with ".<step>" added, as the live heap reaches a new peak: the last
// one written shows what held the memory at (about) the step's highest peak.
func profileHeap(step string, live uint64) {
	path := os.Getenv("BENCH_HEAP_PROFILE")
	if path == "" {
		return
	}
	path += "." + step
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	_ = pprof.Lookup("heap").WriteTo(f, 0)
	fmt.Fprintf(os.Stderr, "heap profile of the %s at a live heap of %d MiB in %s\n", step, live>>20, path)
}

// envSizes reads a comma-separated list of positive counts, or fallback.
func envSizes(b *testing.B, name string, fallback []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	var out []int
	for field := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n <= 0 {
			b.Fatalf("%s=%q: each size is a positive count", name, v)
		}
		out = append(out, n)
	}
	return out
}

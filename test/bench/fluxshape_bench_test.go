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
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// BenchmarkScaleFluxShape is the shape of Flux's published benchmark:
// BENCH_SETS sets (default 1,000) of four objects each (Deployment, Service,
// ConfigMap, ServiceAccount), all in one namespace and so all acting as its
// default ServiceAccount, without waiting for the members. It reports the
// time until all are Ready, each set's time from its creation to Ready (p50,
// p99), the requests per set by verb and resource, the heap the operator
// holds and the CPU of the API server, etcd and this process (the operator).
func BenchmarkScaleFluxShape(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	startSetOperator(b)
	sets := envCount("BENCH_SETS", 1000)
	declared := make([][]applyv1alpha1.Resource, sets)
	for i := range declared {
		declared[i] = resources(b, fluxShapeObjects(fmt.Sprintf("app%d", i)))
	}
	for b.Loop() {
		b.StopTimer()
		ns := namespace(ctx, b, "flux-shape-")
		heapBefore := liveHeap()
		before, cpuBefore, stepsBefore := requestsByResource(ctx, b), readCPU(ctx, b), stepSums(b)
		created := make([]time.Time, sets)
		start := time.Now()
		profiled := profileAPIServer(ctx, b)
		b.StartTimer()
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(32)
		for i := range sets {
			g.Go(func() error {
				set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("app%d", i)}}
				set.Spec.Resources, set.Spec.Wait = declared[i], ptr.To(false)
				created[i] = time.Now()
				return k8sClient.Create(gctx, set)
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		readyAfter := waitAllReady(ctx, b, ns, created)
		b.StopTimer()
		profiled()
		all := time.Since(start)
		cpu := readCPU(ctx, b).Sub(cpuBefore)
		requests := diffCounts(before, requestsByResource(ctx, b), map[string]float64{
			"POST applysets": float64(sets), // the benchmark's own
		})
		heapAfter := liveHeap()
		b.Logf("requests per set, step by step (seconds summed over all sets): %s", stepTrace(stepsBefore, stepSums(b), sets))
		floor, floorCPU := fluxShapeFloor(ctx, b, sets)
		members := fluxShapeMemberFloor(ctx, b, declared)
		slices.Sort(readyAfter)
		p50, p99 := readyAfter[len(readyAfter)/2], readyAfter[len(readyAfter)*99/100]
		b.Logf("%d sets of 4 objects in one namespace: all Ready after %s; per set p50 %s, p99 %s; "+
			"requests per set %s (%.1f in all); heap %d -> %d MiB; CPU: API server %.1f s, etcd %.1f s, operator %.1f s",
			sets, all.Round(10*time.Millisecond), p50.Round(10*time.Millisecond), p99.Round(10*time.Millisecond),
			perSet(requests, sets), sum(requests)/float64(sets), heapBefore>>20, heapAfter>>20,
			cpu.APIServer.Seconds(), cpu.Etcd.Seconds(), cpu.Self.Seconds())
		b.Logf("member floor: the %d sets created and their objects applied with their part-of label, %d at a time: %s "+
			"(the operator took %.2f times as long)", sets, floorInFlight, members.Round(10*time.Millisecond), all.Seconds()/members.Seconds())
		b.Logf("bare floor: the same %d objects applied by no tool, as the ServiceAccount, %d at a time: %s "+
			"(the operator took %.2f times as long); CPU: API server %.1f s, etcd %.1f s, the applier %.1f s",
			4*sets, floorInFlight, floor.Round(10*time.Millisecond), all.Seconds()/floor.Seconds(),
			floorCPU.APIServer.Seconds(), floorCPU.Etcd.Seconds(), floorCPU.Self.Seconds())
		b.ReportMetric(all.Seconds(), "all-ready-s")
		b.ReportMetric(floor.Seconds(), "floor-s")
		b.ReportMetric(members.Seconds(), "member-floor-s")
		b.ReportMetric(all.Seconds()/members.Seconds(), "member-floor-ratio")
		b.ReportMetric(p50.Seconds(), "p50-set-s")
		b.ReportMetric(p99.Seconds(), "p99-set-s")
		b.ReportMetric(sum(requests)/float64(sets), "requests/set")
		b.ReportMetric(float64((heapAfter-min(heapBefore, heapAfter))>>20), "heap-MiB")
		b.ReportMetric(cpu.APIServer.Seconds(), "apiserver-cpu-s")
		b.ReportMetric(cpu.Etcd.Seconds(), "etcd-cpu-s")
		b.ReportMetric(cpu.Self.Seconds(), "operator-cpu-s")
		b.StartTimer()
	}
}

// fluxShapeFloor applies the sets' objects into a new namespace with no tool
// in between, as that namespace's default ServiceAccount (whom the sets act
// as), floorInFlight at a time: the least time and CPU the objects themselves
// cost, which the sets' own requests add to.
func fluxShapeFloor(ctx context.Context, b *testing.B, sets int) (time.Duration, testenv.CPU) {
	b.Helper()
	ns := namespace(ctx, b, "flux-shape-floor-")
	objs := make([]map[string]any, 0, 4*sets)
	for i := range sets {
		objs = append(objs, fluxShapeObjects(fmt.Sprintf("app%d", i))...)
	}
	before := readCPU(ctx, b)
	took := applyFloor(ctx, b, impersonating(b, ns), floorInFlight, objs, ns)
	return took, readCPU(ctx, b).Sub(before)
}

// fluxShapeMemberFloor creates the sets, each declaring declared[i], and
// applies their objects with their part-of label, into a new namespace.
func fluxShapeMemberFloor(ctx context.Context, b *testing.B, declared [][]applyv1alpha1.Resource) time.Duration {
	b.Helper()
	ns := namespace(ctx, b, "flux-shape-member-floor-")
	sets := make([]*applyv1alpha1.ApplySet, len(declared))
	members := make([][]map[string]any, len(declared))
	for i := range declared {
		name := fmt.Sprintf("app%d", i)
		sets[i] = &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		sets[i].Spec.Resources, sets[i].Spec.Wait = declared[i], ptr.To(false)
		members[i] = fluxShapeObjects(name)
	}
	return memberFloor(ctx, b, sets, members, floorInFlight)
}

// fluxShapeObjects are the four objects of one set of Flux's benchmark.
func fluxShapeObjects(name string) []map[string]any {
	labels := map[string]any{"app": name}
	meta := func() map[string]any { return map[string]any{"name": name, "labels": labels} }
	return []map[string]any{
		{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta()},
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(), "data": map[string]any{"app.properties": "mode=bench\n"}},
		{"apiVersion": "v1", "kind": "Service", "metadata": meta(), "spec": map[string]any{
			"selector": labels, "ports": []any{map[string]any{"name": "http", "port": int64(80), "targetPort": int64(8080)}}}},
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(), "spec": map[string]any{
			"replicas": int64(0), "selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": map[string]any{
				"serviceAccountName": name,
				"containers": []any{map[string]any{"name": "app", "image": "registry.example/app:1",
					"ports": []any{map[string]any{"containerPort": int64(8080)}}}}}}}},
	}
}

// waitAllReady watches the namespace's sets (polling them with LISTs would
// cost the API server more than the sets do) until all are Ready, and
// returns each set's time from its creation to Ready.
func waitAllReady(ctx context.Context, b *testing.B, ns string, created []time.Time) []time.Duration {
	b.Helper()
	readyAt, waiting := map[string]time.Duration{}, map[string]string{}
	watchUntil(ctx, b, &applyv1alpha1.ApplySetList{}, []client.ListOption{client.InNamespace(ns)}, func(obj runtime.Object) bool {
		set, ok := obj.(*applyv1alpha1.ApplySet)
		if !ok {
			b.Fatalf("watching the sets: %v", obj)
		}
		if _, done := readyAt[set.Name]; done {
			return false
		}
		if c := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue {
			b.Fatalf("set %s stalled: %s: %s", set.Name, c.Reason, c.Message)
		}
		if !readyNow(set) {
			waiting[set.Name] = fmt.Sprintf("%s: %v", set.Name, set.Status.Conditions)
			return false
		}
		var i int
		if _, err := fmt.Sscanf(set.Name, "app%d", &i); err != nil || i >= len(created) {
			b.Fatalf("unexpected set %s", set.Name)
		}
		readyAt[set.Name] = time.Since(created[i])
		delete(waiting, set.Name)
		return len(readyAt) == len(created)
	}, func() string {
		return fmt.Sprintf("%d of %d sets Ready; one waiting: %v", len(readyAt), len(created), firstValue(waiting))
	})
	return slices.Collect(maps.Values(readyAt))
}

func firstValue(m map[string]string) string {
	for _, v := range m {
		return v
	}
	return ""
}

// requestsByResource reads apiserver_request_total by "VERB resource" (with
// its subresource), leaving out WATCHes as requestCounts does.
func requestsByResource(ctx context.Context, b *testing.B) map[string]float64 {
	b.Helper()
	totals, err := testenv.RequestTotals(ctx, cp.Config)
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]float64{}
	for _, t := range totals {
		if t.Labels["verb"] == "WATCH" {
			continue
		}
		key := t.Labels["verb"] + " " + t.Labels["resource"]
		if sub := t.Labels["subresource"]; sub != "" {
			key += "/" + sub
		}
		out[key] += t.Value
	}
	return out
}

// perSet formats the requests divided by the sets, largest first, leaving
// out what rounds to nothing.
func perSet(requests map[string]float64, sets int) string {
	keys := slices.Collect(maps.Keys(requests))
	sort.Slice(keys, func(i, j int) bool { return requests[keys[i]] > requests[keys[j]] })
	var parts []string
	for _, k := range keys {
		if v := requests[k] / float64(sets); v >= 0.05 {
			parts = append(parts, fmt.Sprintf("%s %.2f", k, v))
		}
	}
	return strings.Join(parts, ", ")
}

// envDuration reads a duration from the environment, or fallback.
func envDuration(name string, fallback time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return fallback
}

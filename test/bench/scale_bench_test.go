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
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/parents"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// The scale benchmarks do their whole scenario once per iteration and are
// meant to run once (make bench runs them with -benchtime 1x): each takes
// minutes, and what they report is the scenario's figures, not ns/op.

// BenchmarkScaleHundredKinds applies one ClusterApplySet of 5,000 objects: 100
// CRDs and 49 objects of each of their kinds, from ConfigMap sources. It
// reports the time until Ready, the requests, and the process's heap and RSS.
func BenchmarkScaleHundredKinds(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	startSetOperator(b)
	const kinds, perKind = 100, 49
	var totalTime, totalRequests float64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		group := fmt.Sprintf("scale%d.example.com", i)
		sourceNS := namespace(ctx, b, "scale-sources-")
		targetNS := namespace(ctx, b, "scale-")
		sources := scaleSources(ctx, b, sourceNS, targetNS, group, kinds, perKind)
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("scale-%d", i)}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = sourceNS, clusterAdminAccount(ctx, b, sourceNS)
		set.Spec.Sources, set.Spec.AdditionalNamespaces = sources, []string{targetNS}
		set.Spec.Wait = ptr.To(false) // the CRs have no status to wait on

		heapBefore, rssBefore := liveHeap(), rss(b)
		before := requestCounts(ctx, b)
		start := time.Now()
		b.StartTimer()
		if err := k8sClient.Create(ctx, set); err != nil {
			b.Fatal(err)
		}
		waitSetReady(ctx, b, set, 15*time.Minute)
		b.StopTimer()
		elapsed := time.Since(start)
		requests := diffCounts(before, requestCounts(ctx, b), nil)
		heapAfter, rssAfter := liveHeap(), rss(b)
		b.Logf("%d objects over %d CRD kinds: Ready after %s; requests %v; heap %d -> %d MiB, RSS %d -> %d MiB",
			kinds*(perKind+1), kinds, elapsed.Round(10*time.Millisecond), requests,
			heapBefore>>20, heapAfter>>20, rssBefore>>20, rssAfter>>20)
		totalTime += elapsed.Seconds()
		totalRequests += sum(requests)
		b.ReportMetric(float64(heapAfter>>20), "heap-MiB")
		b.ReportMetric(float64(rssAfter>>20), "rss-MiB")
		b.StartTimer()
	}
	b.ReportMetric(totalTime/float64(b.N), "ready-s")
	b.ReportMetric(totalRequests/float64(b.N), "requests")
}

// scaleSources writes the CRDs and the objects of the scenario into
// ConfigMaps in ns (the objects in target) and returns them as sources: one
// for the CRDs, one per thousand objects, each under the 1 MiB a ConfigMap holds.
func scaleSources(ctx context.Context, b *testing.B, ns, target, group string, kinds, perKind int) []applyv1alpha1.ClusterSource {
	b.Helper()
	var crds, objects []string
	for k := range kinds {
		kind := fmt.Sprintf("Scale%d", k)
		crd := testenv.OpenCRD(group, kind)
		crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		data, err := yaml.Marshal(crd)
		if err != nil {
			b.Fatal(err)
		}
		crds = append(crds, string(data))
		for i := range perKind {
			objects = append(objects, fmt.Sprintf("apiVersion: %s/v1\nkind: %s\nmetadata: {name: obj-%d, namespace: %s}\nspec: {value: v1}\n",
				group, kind, i, target))
		}
	}
	chunks := [][]string{crds}
	for len(objects) > 0 {
		n := min(1000, len(objects))
		chunks, objects = append(chunks, objects[:n]), objects[n:]
	}
	var out []applyv1alpha1.ClusterSource
	for i, docs := range chunks {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("part-%d", i)},
			Data: map[string]string{"objects.yaml": strings.Join(docs, "---\n")}}
		if err := k8sClient.Create(ctx, cm); err != nil {
			b.Fatal(err)
		}
		out = append(out, applyv1alpha1.ClusterSource{Namespace: ns, Source: applyv1alpha1.Source{Kind: "ConfigMap", Name: cm.Name}})
	}
	return out
}

// clusterAdminAccount creates a ServiceAccount in ns bound to cluster-admin,
// for sets that install CRDs, and returns its name.
func clusterAdminAccount(ctx context.Context, b *testing.B, ns string) string {
	b.Helper()
	const name = "installer"
	for _, obj := range []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: name}}},
	} {
		if err := k8sClient.Create(ctx, obj); err != nil {
			b.Fatal(err)
		}
	}
	return name
}

// BenchmarkScaleManySets creates 200 ApplySets of 50 objects each at once and
// reports the time until all are Ready, the slowest and the fastest set's
// time from its creation, the requests and the heap.
func BenchmarkScaleManySets(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	startSetOperator(b)
	sets, perSet := envCount("BENCH_SETS", 200), envCount("BENCH_SET_OBJECTS", 50)
	objs := resources(b, everydayObjects(perSet))
	for b.Loop() {
		b.StopTimer()
		namespaces := make([]string, sets)
		for i := range namespaces {
			namespaces[i] = namespace(ctx, b, "many-")
		}
		heapBefore := liveHeap()
		before := requestCounts(ctx, b)
		created := map[string]time.Time{}
		start := time.Now()
		b.StartTimer()
		g, gctx := errgroup.WithContext(ctx)
		var mu sync.Mutex
		for _, ns := range namespaces {
			g.Go(func() error {
				set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "many"}}
				set.Spec.Resources, set.Spec.Wait = objs, ptr.To(false)
				mu.Lock()
				created[ns] = time.Now()
				mu.Unlock()
				return k8sClient.Create(gctx, set)
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		// One LIST every 100 ms watches them all: polling each set on its own
		// would load the API server more than the sets do.
		readyAfter := map[string]time.Duration{}
		waitFor(b, 15*time.Minute, func() bool {
			list := &applyv1alpha1.ApplySetList{}
			if err := k8sClient.List(ctx, list); err != nil {
				return false
			}
			for i := range list.Items {
				set := &list.Items[i]
				if _, ok := created[set.Namespace]; !ok || readyAfter[set.Namespace] != 0 {
					continue
				}
				if c := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue {
					b.Fatalf("set %s stalled: %s: %s", set.Namespace, c.Reason, c.Message)
				}
				if c := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady); c != nil &&
					c.Status == metav1.ConditionTrue && c.ObservedGeneration == set.Generation {
					readyAfter[set.Namespace] = time.Since(created[set.Namespace])
				}
			}
			time.Sleep(80 * time.Millisecond)
			return len(readyAfter) == sets
		})
		b.StopTimer()
		all := time.Since(start)
		requests := diffCounts(before, requestCounts(ctx, b), nil)
		fastest, slowest := all, time.Duration(0)
		for _, d := range readyAfter {
			fastest, slowest = min(fastest, d), max(slowest, d)
		}
		heapAfter := liveHeap()
		b.Logf("%d sets of %d objects at once: all Ready after %s, fastest set %s, slowest %s; requests %v (the benchmark's LISTs of sets included); heap %d -> %d MiB",
			sets, perSet, all.Round(10*time.Millisecond), fastest.Round(10*time.Millisecond), slowest.Round(10*time.Millisecond),
			requests, heapBefore>>20, heapAfter>>20)
		b.ReportMetric(all.Seconds(), "all-ready-s")
		b.ReportMetric(slowest.Seconds(), "slowest-set-s")
		b.ReportMetric(float64(heapAfter>>20), "heap-MiB")
		b.StartTimer()
	}
}

// BenchmarkScaleParents creates 10,000 kubectl-written parents, each with one
// member, and starts the parent reconciler over them: the time until it has
// verified every parent and gone quiet, its requests, and the heap it holds.
func BenchmarkScaleParents(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	n := envCount("BENCH_PARENTS", 10000)
	kind := tenKinds(ctx, b)[0]
	for b.Loop() {
		b.StopTimer()
		ns := namespace(ctx, b, "parents-")
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(floorInFlight)
		for i := range n {
			g.Go(func() error {
				name := fmt.Sprintf("p%d", i)
				id, err := newKubectlParent(gctx, ns, name, kind+".bench.example.com")
				if err != nil {
					return err
				}
				return newMember(gctx, kind, ns, name, id)
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		heapBefore := liveHeap()
		verified := reconcileCountOf(b, "applyset-parents")
		start := time.Now()
		b.StartTimer()
		count := startOperator(b, parents.Options{OrphanPolicy: parents.OrphanReport, Resync: time.Hour})
		last, quietSince := count.Load(), time.Now()
		waitFor(b, 30*time.Minute, func() bool {
			if now := count.Load(); now != last {
				last, quietSince = now, time.Now()
			}
			return reconcileCountOf(b, "applyset-parents")-verified >= float64(n) && time.Since(quietSince) > 3*time.Second
		})
		b.StopTimer()
		settled := quietSince.Sub(start)
		heapAfter := liveHeap()
		b.Logf("%d kubectl parents, one member each: verified and quiet after %s with %d requests; heap %d -> %d MiB",
			n, settled.Round(10*time.Millisecond), last, heapBefore>>20, heapAfter>>20)
		b.ReportMetric(settled.Seconds(), "settle-s")
		b.ReportMetric(float64(last), "requests")
		b.ReportMetric(float64((heapAfter-min(heapBefore, heapAfter))>>20), "heap-MiB")
		b.StartTimer()
	}
}

// reconcileCountOf reads the successful reconciles of a controller in this process.
func reconcileCountOf(b *testing.B, controller string) float64 {
	n, err := testenv.Reconciles(controller)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// waitSetReady waits until a set is Ready at its generation, watching it.
func waitSetReady(ctx context.Context, b *testing.B, set applyv1alpha1.Set, timeout time.Duration) {
	b.Helper()
	if err := setReady(ctx, set, timeout); err != nil {
		b.Fatal(err)
	}
}

// setReady is waitSetReady for goroutines other than the benchmark's. A set
// that stalls fails at once, with its reason.
func setReady(ctx context.Context, set applyv1alpha1.Set, timeout time.Duration) error {
	var stalled *metav1.Condition
	err := watchSet(ctx, set, timeout, func() bool {
		conditions := set.GetSetStatus().Conditions
		if c := apimeta.FindStatusCondition(conditions, applyv1alpha1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue {
			stalled = c
			return true
		}
		c := apimeta.FindStatusCondition(conditions, applyv1alpha1.ConditionReady)
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == set.GetGeneration()
	})
	if stalled != nil {
		return fmt.Errorf("the set stalled: %s: %s", stalled.Reason, stalled.Message)
	}
	return err
}

// rss is the resident memory of this process, which runs the operator.
func rss(b *testing.B) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// envCount reads a positive count from the environment, or fallback.
func envCount(name string, fallback int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return fallback
}

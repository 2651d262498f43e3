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

package reliability

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Many sets at once: RELIABILITY_SETS sets of RELIABILITY_SET_OBJECTS
// ConfigMaps are created together, then half of them are edited together.
// It reports the time until all are Ready, the slowest set, the API
// server's requests by verb and the operator's heap; it asserts only that
// nothing is lost.
var _ = Describe("Load", Ordered, func() {
	BeforeAll(func() { env.StartManager(setupOperator) })

	It("converges many sets created and edited at once, losing nothing", func(ctx context.Context) {
		nSets, perSet := envInt("RELIABILITY_SETS", 10), envInt("RELIABILITY_SET_OBJECTS", 30)
		sets := make([]*applyv1alpha1.ApplySet, nSets)
		for i := range sets {
			sets[i] = &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace(ctx), Name: "load"}}
			sets[i].Spec.Resources = configMaps(perSet, "v1")
		}
		heapBefore := heapInUse()
		before := requestsByVerb(ctx)
		slowest := allReady(ctx, sets, func(s *applyv1alpha1.ApplySet) { Expect(k8sClient.Create(ctx, s)).To(Succeed()) })
		created := requestsByVerb(ctx)
		heapAfter := heapInUse()
		Expect(lostOf(ctx, sets, perSet, "v1")).To(BeZero())

		edited := sets[:nSets/2]
		editSlowest := allReady(ctx, edited, func(s *applyv1alpha1.ApplySet) {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			s.Spec.Resources = configMaps(perSet, "v2")
			Expect(k8sClient.Update(ctx, s)).To(Succeed())
		})
		afterEdit := requestsByVerb(ctx)
		Expect(lostOf(ctx, edited, perSet, "v2")).To(BeZero())
		Expect(lostOf(ctx, sets[nSets/2:], perSet, "v1")).To(BeZero())

		AddReportEntry(fmt.Sprintf("load: %d sets x %d objects", nSets, perSet), fmt.Sprintf(
			"created together: all Ready after %s (slowest set %s), requests %v (the test's own polling included), operator heap %d MiB -> %d MiB; "+
				"half edited together: all Ready after %s, requests %v",
			slowest.all, slowest.slowest, difference(before, created), heapBefore>>20, heapAfter>>20,
			editSlowest.all, difference(created, afterEdit)))
	})
})

func configMaps(n int, value string) []applyv1alpha1.Resource {
	GinkgoHelper()
	out := make([]applyv1alpha1.Resource, 0, n)
	for i := range n {
		r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("c%d", i)}, "data": map[string]any{"k": value}})
		Expect(err).NotTo(HaveOccurred())
		out = append(out, r)
	}
	return out
}

// readiness is how long it took until every set was Ready, and the longest
// any one set took.
type readiness struct{ all, slowest time.Duration }

// allReady changes every set with change, at once, and waits until all are
// Ready at their new generation.
func allReady(ctx context.Context, sets []*applyv1alpha1.ApplySet, change func(*applyv1alpha1.ApplySet)) readiness {
	GinkgoHelper()
	start := time.Now()
	var wg sync.WaitGroup
	for _, s := range sets {
		wg.Go(func() {
			defer GinkgoRecover()
			change(s)
		})
	}
	wg.Wait()
	readyAt := make([]time.Duration, len(sets))
	Eventually(func() bool {
		done := true
		for i, s := range sets {
			if readyAt[i] == 0 && ready(ctx, s)() {
				readyAt[i] = time.Since(start)
			}
			done = done && readyAt[i] > 0
		}
		return done
	}).WithTimeout(10 * time.Minute).WithPolling(200 * time.Millisecond).Should(BeTrue())
	return readiness{all: time.Since(start).Round(10 * time.Millisecond), slowest: slices.Max(readyAt).Round(10 * time.Millisecond)}
}

// lostOf counts the declared ConfigMaps of sets that are missing, unlabelled
// or without the value last declared.
func lostOf(ctx context.Context, sets []*applyv1alpha1.ApplySet, n int, value string) int {
	lost := 0
	for _, s := range sets {
		id := applyset.ParentKey{GroupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), Namespace: s.Namespace, Name: s.Name}.ID()
		for i := range n {
			cm := &corev1.ConfigMap{}
			err := k8sClient.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: fmt.Sprintf("c%d", i)}, cm)
			if err != nil || cm.Labels[applyset.PartOfLabel] != id || cm.Data["k"] != value {
				lost++
			}
		}
	}
	return lost
}

// heapInUse is the Go heap of this process, which runs the operator, after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// requestsByVerb reads apiserver_request_total from the API server, by verb.
func requestsByVerb(ctx context.Context) map[string]float64 {
	GinkgoHelper()
	totals, err := testenv.RequestTotals(ctx, env.Config)
	Expect(err).NotTo(HaveOccurred())
	return testenv.SumBy(totals, "verb")
}

func difference(before, after map[string]float64) map[string]int {
	out := map[string]int{}
	for verb, v := range after {
		if d := int(v - before[verb]); d > 0 {
			out[verb] = d
		}
	}
	return out
}

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
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// BenchmarkScaleFairness creates BENCH_SETS sets (default 300) of 4 objects
// in one namespace, and, as soon as they are all created, one set in
// another namespace: it reports how long that set waits to be Ready, and how
// long until the first namespace's sets all are. A fair queue serves the
// second namespace at its first turn.
func BenchmarkScaleFairness(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	startSetOperator(b)
	sets := envCount("BENCH_SETS", 300)
	objs := resources(b, everydayObjects(4))
	// Sets of one namespace declare objects of their own, named after the set.
	own := make([][]applyv1alpha1.Resource, sets)
	for i := range own {
		named := everydayObjects(4)
		for _, o := range named {
			md := o["metadata"].(map[string]any)
			md["name"] = fmt.Sprintf("s%d-%s", i, md["name"])
		}
		own[i] = resources(b, named)
	}
	for b.Loop() {
		b.StopTimer()
		busy, other := namespace(ctx, b, "busy-"), namespace(ctx, b, "other-")
		start := time.Now()
		b.StartTimer()
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(32)
		for i := range sets {
			g.Go(func() error {
				set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: busy, Name: fmt.Sprintf("s%d", i)}}
				set.Spec.Resources, set.Spec.Wait = own[i], ptr.To(false)
				return k8sClient.Create(gctx, set)
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		late := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "late"}}
		late.Spec.Resources, late.Spec.Wait = objs, ptr.To(false)
		lateCreated := time.Now()
		if err := k8sClient.Create(ctx, late); err != nil {
			b.Fatal(err)
		}
		waitFor(b, 10*time.Minute, func() bool { return readySet(ctx, late) })
		lateReady := time.Since(lateCreated)
		waitFor(b, 15*time.Minute, func() bool {
			list := &applyv1alpha1.ApplySetList{}
			if err := k8sClient.List(ctx, list, client.InNamespace(busy)); err != nil {
				return false
			}
			ready := 0
			for i := range list.Items {
				if readyNow(&list.Items[i]) {
					ready++
				}
			}
			time.Sleep(100 * time.Millisecond)
			return ready == sets
		})
		b.StopTimer()
		all := time.Since(start)
		b.Logf("%d sets in one namespace, then one in another: that one Ready %s after its creation; all Ready after %s",
			sets, lateReady.Round(10*time.Millisecond), all.Round(10*time.Millisecond))
		b.ReportMetric(lateReady.Seconds(), "other-namespace-ready-s")
		b.ReportMetric(all.Seconds(), "all-ready-s")
		b.StartTimer()
	}
}

func readySet(ctx context.Context, set *applyv1alpha1.ApplySet) bool {
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
		return false
	}
	return readyNow(set)
}

func readyNow(set *applyv1alpha1.ApplySet) bool {
	c := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == set.Generation
}

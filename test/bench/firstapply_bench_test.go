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
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// BenchmarkFirstApplyFloor sets the operator's first apply of 1,000 objects
// over 10 CRD kinds (an ApplySet created until Ready) against its floor: the
// same objects applied by no tool, as the ServiceAccount the set acts as,
// with as many requests in flight as the operator. The two take turns going
// first. It reports the ratio, the operator's requests per object, its
// writes in the 10 s after Ready, each run's CPU by component, and the time
// each step of the operator's reconciles took.
func BenchmarkFirstApplyFloor(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	startSetOperator(b)
	const n = 1000
	objs := manifests(ctx, b, n, 0, 0)
	// As a running operator has them: its caches and the discovery of the ten kinds.
	warm := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace(ctx, b, "warm-"), Name: "warm"}}
	warm.Spec.Resources = resources(b, manifests(ctx, b, 10, 0, 0))
	if err := k8sClient.Create(ctx, warm); err != nil {
		b.Fatal(err)
	}
	waitReady(ctx, b, warm)
	totals := map[string]float64{}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		var op, floor time.Duration
		var opCPU, floorCPU testenv.CPU
		var opRequests map[string]float64
		runOperator := func() {
			ns := namespace(ctx, b, "first-apply-")
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "load"}}
			set.Spec.Resources = resources(b, objs)
			before, cpuBefore, stepsBefore := requestCounts(ctx, b), readCPU(ctx, b), stepSums(b)
			start := time.Now()
			if err := k8sClient.Create(ctx, set); err != nil {
				b.Fatal(err)
			}
			waitReady(ctx, b, set)
			op = time.Since(start)
			b.Logf("first apply, step by step: %s", stepTrace(stepsBefore, stepSums(b)))
			opCPU = readCPU(ctx, b).Sub(cpuBefore)
			opRequests = diffCounts(before, requestCounts(ctx, b), map[string]float64{"POST": 1}) // the set's creation
			after := requestsByResource(ctx, b)
			time.Sleep(10 * time.Second)
			late := diffCounts(after, requestsByResource(ctx, b), nil)
			for key, v := range late {
				verb, resource, _ := strings.Cut(key, " ")
				if resource == "leases" {
					continue // the API server renews its own identity Lease every 10 s
				}
				if writes(map[string]float64{verb: v}) > 0 {
					totals["writes-after-ready"] += v
					b.Logf("after Ready: %s %.0f", key, v)
				}
			}
		}
		runFloor := func() {
			ns := namespace(ctx, b, "first-apply-floor-")
			cpuBefore := readCPU(ctx, b)
			floor = applyFloor(ctx, b, impersonating(b, ns), apply.DefaultConcurrency, objs, ns)
			floorCPU = readCPU(ctx, b).Sub(cpuBefore)
		}
		if i%2 == 0 {
			runOperator()
			runFloor()
		} else {
			runFloor()
			runOperator()
		}
		b.Logf("first apply of %d objects: operator %s, floor as the ServiceAccount %s (ratio %.2f); requests %v; "+
			"CPU: operator run %s; floor %s", n, op.Round(10*time.Millisecond), floor.Round(10*time.Millisecond),
			op.Seconds()/floor.Seconds(), opRequests, opCPU, floorCPU)
		totals["operator-s"] += op.Seconds()
		totals["floor-s"] += floor.Seconds()
		totals["floor-ratio"] += op.Seconds() / floor.Seconds()
		totals["requests/object"] += sum(opRequests) / n
		totals["operator-apiserver-cpu-s"] += opCPU.APIServer.Seconds()
		totals["floor-apiserver-cpu-s"] += floorCPU.APIServer.Seconds()
		totals["operator-etcd-cpu-s"] += opCPU.Etcd.Seconds()
		totals["floor-etcd-cpu-s"] += floorCPU.Etcd.Seconds()
		totals["operator-process-cpu-s"] += opCPU.Self.Seconds()
		b.StartTimer()
	}
	for unit, v := range totals {
		b.ReportMetric(v/float64(b.N), unit)
	}
}

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
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// BenchmarkFirstApplyFloor sets the operator's first apply of 1,000 objects
// over 10 CRD kinds (an ApplySet created until Ready) against its floor: the
// same objects applied by no tool, as the ServiceAccount the set acts as,
// with as many requests in flight as the operator. The set declares them in
// a gzip-compressed ConfigMap source (declared=source), the way a big set is
// declared, and inline in its spec (declared=inline), whose own writes then
// carry them. The operator and the floor take turns going first. It reports
// the ratio, the operator's requests per object, its writes in the 10 s
// after Ready, each run's CPU by component, and the time each step of the
// operator's reconciles took.
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
	declarations := []struct {
		name    string
		declare func(ns string) *applyv1alpha1.ApplySet
	}{
		{"source", func(ns string) *applyv1alpha1.ApplySet {
			source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "objects"},
				BinaryData: map[string][]byte{"objects.yaml.gz": gzipped(b, yamlStream(b, objs))}}
			if err := k8sClient.Create(ctx, source); err != nil {
				b.Fatal(err)
			}
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "load"}}
			set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: source.Name}}
			return set
		}},
		{"inline", func(ns string) *applyv1alpha1.ApplySet {
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "load"}}
			set.Spec.Resources = resources(b, objs)
			return set
		}},
	}
	for _, d := range declarations {
		b.Run("declared="+d.name, func(b *testing.B) {
			totals := map[string]float64{}
			for b.Loop() {
				b.StopTimer()
				firstApplyRuns[d.name]++ // across -count's runs too
				firstApplyAgainstFloor(ctx, b, firstApplyRuns[d.name]%2 == 1, objs, d.declare, totals)
				b.StartTimer()
			}
			for unit, v := range totals {
				b.ReportMetric(v/float64(b.N), unit)
			}
		})
	}
}

// firstApplyRuns counts the runs of each declaration, so that the operator
// and the floor take turns going first whether the runs are iterations of
// one benchmark (-benchtime Nx) or benchmarks of their own (-count N).
var firstApplyRuns = map[string]int{}

// firstApplyAgainstFloor is one run of BenchmarkFirstApplyFloor: the set
// declare makes, created until Ready, and the floor, the operator first
// when operatorFirst. It adds its figures to totals.
func firstApplyAgainstFloor(ctx context.Context, b *testing.B, operatorFirst bool, objs []map[string]any,
	declare func(ns string) *applyv1alpha1.ApplySet, totals map[string]float64) {
	n := len(objs)
	var op, floor, members time.Duration
	var opCPU, floorCPU testenv.CPU
	var opRequests map[string]float64
	runOperator := func() {
		set := declare(namespace(ctx, b, "first-apply-"))
		before, cpuBefore, stepsBefore := requestCounts(ctx, b), readCPU(ctx, b), stepSums(b)
		start := time.Now()
		if err := k8sClient.Create(ctx, set); err != nil {
			b.Fatal(err)
		}
		waitReady(ctx, b, set)
		op = time.Since(start)
		b.Logf("first apply, step by step: %s", stepTrace(stepsBefore, stepSums(b), 1))
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
		set := declare(namespace(ctx, b, "first-apply-member-floor-"))
		members = memberFloor(ctx, b, []*applyv1alpha1.ApplySet{set}, [][]map[string]any{objs}, apply.DefaultConcurrency)
	}
	if operatorFirst {
		runOperator()
		runFloor()
	} else {
		runFloor()
		runOperator()
	}
	b.Logf("first apply of %d objects: operator %s; member floor (the set's creation, its objects labelled) %s (ratio %.2f); "+
		"bare floor as the ServiceAccount %s (ratio %.2f); requests %v; CPU: operator run %s; bare floor %s",
		n, op.Round(10*time.Millisecond), members.Round(10*time.Millisecond), op.Seconds()/members.Seconds(),
		floor.Round(10*time.Millisecond), op.Seconds()/floor.Seconds(), opRequests, opCPU, floorCPU)
	totals["operator-s"] += op.Seconds()
	totals["floor-s"] += floor.Seconds()
	totals["floor-ratio"] += op.Seconds() / floor.Seconds()
	totals["member-floor-s"] += members.Seconds()
	totals["member-floor-ratio"] += op.Seconds() / members.Seconds()
	totals["requests/object"] += sum(opRequests) / float64(n)
	totals["operator-apiserver-cpu-s"] += opCPU.APIServer.Seconds()
	totals["floor-apiserver-cpu-s"] += floorCPU.APIServer.Seconds()
	totals["operator-etcd-cpu-s"] += opCPU.Etcd.Seconds()
	totals["floor-etcd-cpu-s"] += floorCPU.Etcd.Seconds()
	totals["operator-process-cpu-s"] += opCPU.Self.Seconds()
}

// yamlStream is objs as a multi-document YAML stream, as a source holds them.
func yamlStream(b *testing.B, objs []map[string]any) []byte {
	var out bytes.Buffer
	for _, o := range objs {
		doc, err := yaml.Marshal(o)
		if err != nil {
			b.Fatal(err)
		}
		out.Write(doc)
		out.WriteString("---\n")
	}
	return out.Bytes()
}

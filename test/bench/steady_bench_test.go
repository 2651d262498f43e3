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
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// everydayObjects returns n objects over eight kinds people declare every
// day, as they write them: no defaults filled in. Secrets are not among
// them: a set takes those from a Secret source, never inline.
func everydayObjects(n int) []map[string]any {
	objs := make([]map[string]any, 0, n)
	for i := range n {
		name := fmt.Sprintf("obj-%d", i)
		labels := map[string]any{"app": name}
		var o map[string]any
		switch i % 8 {
		case 0:
			o = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}}
		case 1:
			o = map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "spec": map[string]any{
				"podSelector": map[string]any{"matchLabels": labels}, "policyTypes": []any{"Ingress"}}}
		case 2:
			o = map[string]any{"apiVersion": "v1", "kind": "Service", "spec": map[string]any{"clusterIP": "None",
				"selector": labels, "ports": []any{map[string]any{"name": "http", "port": int64(80)}}}}
		case 3:
			o = map[string]any{"apiVersion": "v1", "kind": "ServiceAccount"}
		case 4:
			o = map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "rules": []any{
				map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": []any{"get", "list"}}}}
		case 5:
			o = map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
				"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
				"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": name}}}
		case 6:
			o = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{
				"selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": map[string]any{
					"containers": []any{map[string]any{"name": "app", "image": "registry.example/app:1",
						"ports": []any{map[string]any{"containerPort": int64(8080)}}}}}}}}
		case 7:
			o = map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "spec": map[string]any{
				"podSelector": map[string]any{"matchLabels": labels},
				"ingress":     []any{map[string]any{"ports": []any{map[string]any{"port": int64(8080)}}}}}}
		}
		o["metadata"] = map[string]any{"name": name}
		objs = append(objs, o)
	}
	return objs
}

// writesByResource reads apiserver_request_total's mutating requests by resource.
func writesByResource(ctx context.Context, b *testing.B) map[string]float64 {
	b.Helper()
	totals, err := testenv.RequestTotals(ctx, cp.Config)
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]float64{}
	for _, t := range totals {
		switch t.Labels["verb"] {
		case "POST", "PUT", "PATCH", "APPLY", "DELETE":
		default:
			continue
		}
		if r := t.Labels["resource"]; r == "leases" || r == "events" || r == "selfsubjectaccessreviews" || r == "selfsubjectrulesreviews" {
			continue // the API server's own heartbeat, and the operator's Events and permission questions
		}
		out[t.Labels["verb"]+" "+t.Labels["resource"]+"/"+t.Labels["subresource"]] += t.Value
	}
	return out
}

func describeCounts(counts map[string]float64) string {
	keys := make([]string, 0, len(counts))
	for k, v := range counts {
		if v > 0 {
			keys = append(keys, fmt.Sprintf("%s=%v", k, v))
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, " ")
}

// BenchmarkSteadyStateWrites applies 800 objects over eight everyday kinds
// and counts the writes in the minute after the set is Ready, and in the
// second of two reconciles forced after that: the goal is none.
func BenchmarkSteadyStateWrites(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	startSetOperator(b)
	total, forced := 0.0, 0.0
	for b.Loop() {
		b.StopTimer()
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace(ctx, b, "steady-"), Name: "everyday"}}
		set.Spec.Wait = ptr.To(false) // no Deployment rolls out here
		set.Spec.Resources = resources(b, everydayObjects(800))
		if err := k8sClient.Create(ctx, set); err != nil {
			b.Fatal(err)
		}
		waitReady(ctx, b, set)

		before := writesByResource(ctx, b)
		time.Sleep(time.Minute)
		after := writesByResource(ctx, b)
		minute := diffCounts(before, after, nil)
		b.Logf("writes in the minute after Ready: %s", describeCounts(minute))
		total += sum(minute)

		// Forced reconciles: the first records the plan of a reconcile that
		// changed nothing (all unchanged) in status; the next writes nothing.
		for i := range 2 {
			before = writesByResource(ctx, b)
			retrigger(ctx, b, set, nil)
			again := diffCounts(before, writesByResource(ctx, b), map[string]float64{"PUT applysets/": 1})
			b.Logf("writes of forced reconcile %d: %s", i+1, describeCounts(again))
			if i == 1 {
				forced += sum(again)
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(total/float64(b.N), "writes/minute-after-ready")
	b.ReportMetric(forced/float64(b.N), "writes/forced-reconcile")
}

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

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// waitingMembers is the number of Deployments a waiting set holds.
const waitingMembers = 20

// BenchmarkWaitingRequests counts the API requests a set makes while it waits
// for members that never become healthy: 20 Deployments no controller rolls
// out here. Each iteration is a 20-second window once the set waits; the
// figure is requests per waiting member per minute, over the API server's own.
func BenchmarkWaitingRequests(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	startSetOperator(b)
	ns := namespace(ctx, b, "waiting-")
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "waiting"}}
	set.Spec.Timeout = &metav1.Duration{Duration: time.Hour}
	objs := make([]map[string]any, 0, waitingMembers)
	for i := range waitingMembers {
		labels := map[string]any{"app": fmt.Sprintf("web-%d", i)}
		objs = append(objs, map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": fmt.Sprintf("web-%d", i)},
			"spec": map[string]any{"selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{"metadata": map[string]any{"labels": labels},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "registry.example/app:1"}}}}},
		})
	}
	set.Spec.Resources = resources(b, objs)
	// The API server makes requests of its own (its lease, every 10 seconds):
	// measured first, and taken off the figures.
	const window = 20 * time.Second
	before := requestCounts(ctx, b)
	time.Sleep(window)
	background := sum(diffCounts(before, requestCounts(ctx, b), map[string]float64{"GET": 1}))

	if err := k8sClient.Create(ctx, set); err != nil {
		b.Fatal(err)
	}
	waitFor(b, time.Minute, func() bool {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
			b.Fatal(err)
		}
		ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		return ready != nil && ready.Reason == "Progressing" && set.Status.Health != nil
	})
	// The wait's delay grows at first: measure once it has.
	time.Sleep(10 * time.Second)

	total := 0.0
	for b.Loop() {
		before := requestCounts(ctx, b)
		time.Sleep(window)
		counts := diffCounts(before, requestCounts(ctx, b), map[string]float64{"GET": 1})
		b.Logf("requests in %s by verb: %v", window, counts)
		total += sum(counts) - background
	}
	perMemberMinute := total / float64(b.N) / waitingMembers / window.Minutes()
	b.ReportMetric(perMemberMinute, "requests/waiting-member/min")
	b.ReportMetric(total/float64(b.N)/window.Minutes(), "requests/min")
}

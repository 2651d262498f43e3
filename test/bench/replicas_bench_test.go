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

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/replicas"
)

// startReplicas runs n replicas of the set reconcilers in this process, as
// --replica-sharding runs them, each holding its Lease, and waits until each
// sees all n live before the benchmark goes on: BENCH_REPLICAS=n sets any
// benchmark that starts the set operator on n replicas.
func startReplicas(b *testing.B, n int) {
	b.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "replicas-"}}
	if err := k8sClient.Create(ctx, ns); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		stop, err := env.RunManagerWith(func(o *ctrl.Options) { withoutFloorSets(&o.Cache) }, func(mgr ctrl.Manager) error {
			m := &replicas.Roster{Reader: mgr.GetAPIReader(), Writer: mgr.GetClient(), Namespace: ns.Name,
				Replica: fmt.Sprintf("r%d", i), Timing: replicas.DefaultTiming}
			if err := mgr.Add(m); err != nil {
				return err
			}
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default",
				Concurrency: envCount("BENCH_SET_CONCURRENCY", 0), Replicas: m})
		})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			if err := stop(); err != nil {
				b.Errorf("replica %d stopped with an error: %v", i, err)
			}
		})
	}
	waitFor(b, time.Minute, func() bool {
		leases := &coordinationv1.LeaseList{}
		return k8sClient.List(ctx, leases, client.InNamespace(ns.Name), client.HasLabels{replicas.ReplicaLabel}) == nil &&
			len(leases.Items) == n
	})
	time.Sleep(replicas.DefaultTiming.RetryPeriod) // each replica has read the others' Leases
	warmUp(b)
}

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

package applysets

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// deployment is a Deployment named web.
func deployment(replicas int64) applyv1alpha1.Resource {
	const name = "web"
	labels := map[string]any{"app": name}
	return object(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "registry.example/app:1"}}}},
		}})
}

// scale sets a Deployment's replicas with an update request, as a
// HorizontalPodAutoscaler or kubectl scale does.
func scale(ctx context.Context, ns, name string, replicas int32) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d := &appsv1.Deployment{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
			return err
		}
		d.Spec.Replicas = ptr.To(replicas)
		return k8sClient.Update(ctx, d, client.FieldOwner("autoscaler"))
	})).To(Succeed())
}

// replicaCount reads the replicas of the Deployment web.
func replicaCount(ctx context.Context, ns string) func() int32 {
	return func() int32 {
		d := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, d)).To(Succeed())
		return *d.Spec.Replicas
	}
}

// poke makes the operator reconcile the set now, as its interval would later.
func poke(ctx context.Context, set *applyv1alpha1.ApplySet) {
	GinkgoHelper()
	updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
		if set.Annotations == nil {
			set.Annotations = map[string]string{}
		}
		set.Annotations["test.applyset.dev/poke"] = time.Now().String()
	})
}

var _ = Describe("Drift", func() {
	It("takes back a declared field another manager updated, and says so; an ignored field is left to it", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "scaled", deployment(2))
		set.Spec.Wait = ptr.To(false) // no controller rolls the Deployment out here
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(set.Status.Drift).To(BeEmpty())

		By("scaling the Deployment with an update, as an autoscaler would")
		scale(ctx, ns, "web", 5)
		poke(ctx, set)
		Eventually(replicaCount(ctx, ns)).Should(BeEquivalentTo(2), "the declared value was not put back")
		Eventually(driftOf(ctx, set)).Should(ConsistOf(SatisfyAll(HaveField("Name", "web"), HaveField("Manager", "autoscaler"),
			HaveField("Fields", ConsistOf(".spec.replicas")), HaveField("Action", applyv1alpha1.DriftCorrected))))
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "scaled")).Should(ContainElement("Warning/" + ReasonDriftCorrected))

		By("leaving spec.replicas to the autoscaler")
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.IgnoreFields = []applyv1alpha1.IgnoreFields{{Group: "apps", Kind: "Deployment", Paths: []string{".spec.replicas"}}}
		})
		readyFor(ctx, set)
		scale(ctx, ns, "web", 7)
		poke(ctx, set)
		readyFor(ctx, set)
		Consistently(replicaCount(ctx, ns)).WithTimeout(2 * time.Second).Should(BeEquivalentTo(7))
		Expect(set.Status.Drift).To(BeEmpty())
	})
})

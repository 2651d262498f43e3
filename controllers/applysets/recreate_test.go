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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

func job(image string) applyv1alpha1.Resource {
	return object(map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "migrate"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"restartPolicy": "Never",
			"containers":    []any{map[string]any{"name": "migrate", "image": image}},
		}}}})
}

var _ = Describe("Immutable fields", func() {
	It("names the field an apply may not change, and recreates the object with spec.force", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "jobs", job("registry.example/migrate:1"))
		set.Spec.Wait = ptr.To(false) // no Job controller runs here
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		first := &batchv1.Job{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "migrate"}, first)).To(Succeed())

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = []applyv1alpha1.Resource{job("registry.example/migrate:2")}
		})
		Eventually(readyCondition(ctx, set)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", applyv1alpha1.ReasonApplyFailed),
			HaveField("Message", ContainSubstring("spec.template may not change once the object exists; set spec.force"))))

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.Force = ptr.To(true) })
		readyFor(ctx, set)
		Expect(set.Status.Plan.Recreate).To(ConsistOf(SatisfyAll(HaveField("Name", "migrate"),
			HaveField("Fields", ContainElement("spec.template")))))
		second := &batchv1.Job{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "migrate"}, second)).To(Succeed())
		Expect(second.UID).NotTo(Equal(first.UID))
		Expect(second.Spec.Template.Spec.Containers[0].Image).To(Equal("registry.example/migrate:2"))
	})
})

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
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func inlineServiceAccount(name string) applyv1alpha1.Resource {
	return object(map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name}})
}

// labelled returns the part-of label of a ConfigMap, "" when it has none.
func labelled(ctx context.Context, ns, name string) string {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)).To(Succeed())
	return cm.Labels[applyset.PartOfLabel]
}

func deleteAndWait(ctx context.Context, set client.Object) {
	GinkgoHelper()
	Expect(k8sClient.Delete(ctx, set)).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set))
	}).Should(BeTrue(), "the set was never released")
}

var _ = Describe("Prune", func() {
	It("prunes the members of a namespace and of a kind that left the set", func(ctx context.Context) {
		ns, other := newNamespace(ctx), bareNamespace(ctx)
		grantEverything(ctx, other, ns)
		set := newSet(ns, "shrinking", inlineConfigMap("a", "1"), inlineServiceAccount("s"), namespacedConfigMap(other, "b"))
		set.Spec.AdditionalNamespaces = []string{other}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(configMapExists(ctx, other, "b")).To(BeTrue())

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.AdditionalNamespaces = nil
			set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("a", "1")}
		})
		readyFor(ctx, set)
		Expect(configMapExists(ctx, other, "b")).To(BeFalse(), "the member in the namespace that left the set was kept")
		Expect(exists(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "s"}})()).To(BeFalse())
		Expect(names(set.Status.Plan.Prune)).To(ConsistOf("ConfigMap b", "ServiceAccount s"))
		Expect(set.Annotations).To(HaveKeyWithValue(applyset.AdditionalNamespacesAnnotation, ""))
		Expect(set.Annotations).To(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap"))
	})

	It("shows a member it may not delete as a condition, and keeps it in the hints", func(ctx context.Context) {
		ns := newNamespace(ctx)
		owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "owner"}}
		Expect(k8sClient.Create(ctx, owner)).To(Succeed())
		set := newSet(ns, "kept", inlineConfigMap("a", "1"), inlineServiceAccount("owned"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		owned := &corev1.ServiceAccount{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "owned"}, owned)).To(Succeed())
		owned.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}
		Expect(k8sClient.Update(ctx, owned)).To(Succeed())

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.Resources = set.Spec.Resources[:1] })
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", applyv1alpha1.ReasonPruneSkipped),
			HaveField("Message", ContainSubstring("ServiceAccount "+ns+"/owned (it is owned by ConfigMap owner"))))
		Expect(condition(ctx, set, applyv1alpha1.ConditionStalled)()).To(HaveField("Status", metav1.ConditionTrue))
		Expect(exists(ctx, owned)()).To(BeTrue())
		Expect(set.Annotations).To(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap,ServiceAccount"),
			"the hint dropped the kind of a member that still claims the set")
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "kept")).Should(ContainElement("Warning/" + applyv1alpha1.ReasonPruneSkipped))

		out, err := env.Kubectl(ctx, "", "get", "applyset", "kept", "-n", ns)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("PruneSkipped"))
	})

	It("previews the objects in a Namespace the set creates as creates", func(ctx context.Context) {
		fresh := "fresh-" + bareNamespace(ctx)
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: fresh}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = clusterAdmin(ctx)
		set.Spec.DryRun = ptr.To(true)
		set.Spec.AdditionalNamespaces = []string{fresh}
		set.Spec.Resources = []applyv1alpha1.Resource{
			object(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": fresh}}),
			namespacedConfigMap(fresh, "inside"),
		}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", applyv1alpha1.ReasonPreviewed)))
		Expect(names(set.Status.Plan.Create)).To(ConsistOf("Namespace "+fresh, "ConfigMap inside"))
		Expect(exists(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fresh}})()).To(BeFalse())
	})
})

var _ = Describe("Deletion", func() {
	It("disbands every member under Orphan, also those the set no longer declares", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "disbanded", inlineConfigMap("a", "1"), inlineConfigMap("earlier", "1"))
		set.Spec.DeletionPolicy = applyv1alpha1.DeletionPolicyOrphan
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Prune = ptr.To(false)
			set.Spec.Resources = set.Spec.Resources[:1]
		})
		readyFor(ctx, set)
		Expect(labelled(ctx, ns, "earlier")).To(Equal(set.Status.ApplySetID), "without prune the member stays")

		deleteAndWait(ctx, set)
		Expect(labelled(ctx, ns, "a")).To(BeEmpty())
		Expect(labelled(ctx, ns, "earlier")).To(BeEmpty(), "a member declared earlier kept the label and would look like an orphan")
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "disbanded")).Should(ContainElement("Normal/" + ReasonReleased))
	})

	DescribeTable("works from the members when the sources are gone", func(ctx context.Context, policy applyv1alpha1.DeletionPolicy) {
		ns := newNamespace(ctx)
		source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manifests"},
			Data: map[string]string{"app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {k: v}\n"}}
		Expect(k8sClient.Create(ctx, source)).To(Succeed())
		set := newSet(ns, "sourceless")
		set.Spec.DeletionPolicy = policy
		set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: "manifests"}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		Expect(k8sClient.Delete(ctx, source)).To(Succeed())
		deleteAndWait(ctx, set)
		if policy == applyv1alpha1.DeletionPolicyDelete {
			Expect(configMapExists(ctx, ns, "x")).To(BeFalse())
		} else {
			Expect(labelled(ctx, ns, "x")).To(BeEmpty())
		}
	},
		Entry("Delete", applyv1alpha1.DeletionPolicyDelete),
		Entry("Orphan", applyv1alpha1.DeletionPolicyOrphan),
	)

	It("is blocked, saying why, while the identity may not release the members", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "held", inlineConfigMap("a", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(k8sClient.DeleteAllOf(ctx, &rbacv1.RoleBinding{}, client.InNamespace(ns))).To(Succeed())

		Expect(k8sClient.Delete(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(SatisfyAll(
			HaveField("Reason", applyv1alpha1.ReasonDeletionBlocked), HaveField("Message", ContainSubstring("may not list configmaps"))))
		Consistently(func() bool { return configMapExists(ctx, ns, "a") }).WithTimeout(time.Second).Should(BeTrue())

		grantEverything(ctx, ns, ns)
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set))
		}).Should(BeTrue())
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse())
	})
})

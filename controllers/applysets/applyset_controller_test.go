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
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("ApplySet", func() {
	It("applies its objects, reports the plan, keeps the parent contract and prunes what leaves the set", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "web", inlineConfigMap("a", "1"), inlineConfigMap("b", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		id := applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: ns, Name: "web"}.ID()
		Expect(set.Status.ApplySetID).To(Equal(id))
		Expect(names(set.Status.Plan.Create)).To(ConsistOf("ConfigMap a", "ConfigMap b"))
		Expect(set.Status.MemberCount).To(HaveValue(BeEquivalentTo(2)))
		Expect(set.Status.GroupKinds).To(Equal([]string{"ConfigMap"}))
		Expect(set.Labels).To(HaveKeyWithValue(applyset.IDLabel, id))
		Expect(set.Annotations).To(HaveKeyWithValue(applyset.ToolingAnnotation, "applyset-operator/v0.1.0"))
		Expect(set.Annotations).To(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap"))
		Expect(set.Finalizers).To(ContainElement(applyv1alpha1.MembersFinalizer))
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, cm)).To(Succeed())
		Expect(cm.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, id))

		By("changing one object and removing the other")
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("a", "2")}
		})
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "b")).To(BeFalse())
		Expect(names(set.Status.Plan.Prune)).To(ConsistOf("ConfigMap b"))
		Expect(set.Status.Plan.Update).To(ConsistOf(SatisfyAll(HaveField("Name", "a"), HaveField("Fields", ConsistOf(".data.k")))))
		Expect(set.Status.MemberCount).To(HaveValue(BeEquivalentTo(1)))
	})

	It("previews with dryRun, changing nothing, and the preview matches the apply that follows", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "preview", inlineConfigMap("a", "1"))
		set.Spec.DryRun = ptr.To(true)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(condition(ctx, set, applyv1alpha1.ConditionReady)().Reason).To(Equal(applyv1alpha1.ReasonPreviewed))
		Expect(set.Status.Plan.DryRun).To(HaveValue(BeTrue()))
		preview := names(set.Status.Plan.Create)
		Expect(preview).To(ConsistOf("ConfigMap a"))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse(), "a dry run created an object")
		Expect(set.Labels).NotTo(HaveKey(applyset.IDLabel), "a dry run wrote the parent's labels")

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.DryRun = ptr.To(false) })
		readyFor(ctx, set)
		Expect(names(set.Status.Plan.Create)).To(Equal(preview))
		Expect(configMapExists(ctx, ns, "a")).To(BeTrue())
	})

	It("stalls on bad input with a message naming the object, and applies nothing", func(ctx context.Context) {
		ns := newNamespace(ctx)
		unknown, err := applyv1alpha1.NewResource(map[string]any{
			"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "g"}})
		Expect(err).NotTo(HaveOccurred())
		set := newSet(ns, "bad", inlineConfigMap("a", "1"), unknown)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", applyv1alpha1.ReasonInvalidInput),
			HaveField("Message", ContainSubstring("spec.resources[1]: the cluster does not serve example.com/v1, Kind=Gizmo"))))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse())
	})

	It("re-applies when a source ConfigMap changes", func(ctx context.Context) {
		ns := newNamespace(ctx)
		source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manifests"},
			Data: map[string]string{"app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-source}\ndata: {k: v}\n"}}
		Expect(k8sClient.Create(ctx, source)).To(Succeed())
		set := newSet(ns, "sourced")
		set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: "manifests"}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "from-source")).To(BeTrue())

		source.Data["more.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: added-later}\n"
		Expect(k8sClient.Update(ctx, source)).To(Succeed())
		Eventually(func() bool { return configMapExists(ctx, ns, "added-later") }).Should(BeTrue())
	})

	It("reports a conflict with the field manager that owns a field, then takes it over with force", func(ctx context.Context) {
		ns := newNamespace(ctx)
		out, err := env.Kubectl(ctx, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared, namespace: %s}\ndata: {k: theirs}\n", ns),
			"apply", "--server-side", "--field-manager=team-b", "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
		set := newSet(ns, "conflicting", inlineConfigMap("shared", "ours"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Reason", applyv1alpha1.ReasonConflict))
		Expect(set.Status.Conflicts).To(ConsistOf(SatisfyAll(HaveField("Name", "shared"), HaveField("Manager", "team-b"),
			HaveField("Fields", ContainElement(".data.k")))))

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.Force = ptr.To(true) })
		readyFor(ctx, set)
		Expect(set.Status.Conflicts).To(BeEmpty())
	})

	It("is refused by kubectl as another tool's set", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "ours", inlineConfigMap("a", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		out, err := env.Kubectl(ctx, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: %s}\n", ns),
			"apply", "--server-side", "--prune", "--applyset=applysets.apply.applyset.dev/ours", "-n", ns, "-f", "-")
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring(`is managed by tooling "applyset-operator" instead of "kubectl"`))
		Expect(configMapExists(ctx, ns, "x")).To(BeFalse())
	})

	It("lists exactly its members through kubectl with the part-of selector", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "listed", inlineConfigMap("a", "1"), inlineConfigMap("b", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bystander"}})).To(Succeed())
		out, err := env.Kubectl(ctx, "", "get", "configmaps", "-n", ns, "-l", applyset.PartOfLabel+"="+set.Status.ApplySetID, "-o", "name")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(strings.Fields(out)).To(ConsistOf("configmap/a", "configmap/b"))
	})

	DescribeTable("deletion", func(ctx context.Context, policy applyv1alpha1.DeletionPolicy, membersRemain bool) {
		ns := newNamespace(ctx)
		set := newSet(ns, "doomed", inlineConfigMap("a", "1"))
		set.Spec.DeletionPolicy = policy
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(k8sClient.Delete(ctx, set)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set))
		}).Should(BeTrue(), "the set was never released")
		Expect(configMapExists(ctx, ns, "a")).To(Equal(membersRemain))
		if membersRemain {
			cm := &corev1.ConfigMap{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, cm)).To(Succeed())
			Expect(cm.Labels).NotTo(HaveKey(applyset.PartOfLabel))
			Expect(cm.Data).To(HaveKeyWithValue("k", "1"))
		}
	},
		Entry("Delete prunes every member", applyv1alpha1.DeletionPolicyDelete, false),
		Entry("Orphan disbands the set and leaves the members", applyv1alpha1.DeletionPolicyOrphan, true),
	)
})

var _ = Describe("ApplySet safety", func() {
	It("refuses a set whose ID label was tampered with, and one another tool manages", func(ctx context.Context) {
		ns := newNamespace(ctx)
		tampered := newSet(ns, "tampered", inlineConfigMap("a", "1"))
		tampered.Labels = map[string]string{applyset.IDLabel: "applyset-someone-else-v1"}
		Expect(k8sClient.Create(ctx, tampered)).To(Succeed())
		Eventually(condition(ctx, tampered, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", applyv1alpha1.ReasonIDMismatch)))

		foreign := newSet(ns, "foreign", inlineConfigMap("b", "1"))
		foreign.Annotations = map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1"}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		Eventually(condition(ctx, foreign, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", applyset.ReasonForeignTooling),
			HaveField("Message", ContainSubstring("managed by kubectl/v1.37.1"))))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse())
		Expect(configMapExists(ctx, ns, "b")).To(BeFalse())
	})

	It("prunes nothing when an apply fails", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "partial", inlineConfigMap("a", "1"), inlineConfigMap("b", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		By("declaring an object another set owns, and dropping b")
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken",
			Labels: map[string]string{applyset.PartOfLabel: "applyset-other-v1"}}})).To(Succeed())
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("a", "1"), inlineConfigMap("taken", "1")}
		})
		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionTrue), HaveField("Message", ContainSubstring("belongs to another ApplySet"))))
		Expect(configMapExists(ctx, ns, "b")).To(BeTrue(), "b was pruned although an apply failed")
	})

	It("writes members as the set's ServiceAccount, so RBAC it lacks stops the apply", func(ctx context.Context) {
		ns := bareNamespace(ctx)
		Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant"}})).To(Succeed())
		set := newSet(ns, "tenant-set", inlineConfigMap("a", "1"))
		set.Spec.ServiceAccountName = "tenant"
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", applyv1alpha1.ReasonAccessDenied),
			HaveField("Message", ContainSubstring("ServiceAccount "+ns+"/tenant may not")),
			HaveField("Message", ContainSubstring("configmaps in namespace "+ns))))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse())

		By("granting the account what the set needs")
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "configmaps"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "tenant", Namespace: ns}}})).To(Succeed())
		Eventually(func() bool { return configMapExists(ctx, ns, "a") }).Should(BeTrue())
	})
})

var _ = Describe("ClusterApplySet", func() {
	It("applies objects across namespaces, records them in the hints, and prunes them", func(ctx context.Context) {
		a, b := newNamespace(ctx), newNamespace(ctx)
		member := func(ns, name string) applyv1alpha1.Resource {
			r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": name, "namespace": ns}})
			Expect(err).NotTo(HaveOccurred())
			return r
		}
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "platform-" + a}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = clusterAdmin(ctx)
		set.Spec.AdditionalNamespaces = []string{a, b}
		set.Spec.Resources = []applyv1alpha1.Resource{member(a, "x"), member(b, "y")}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Status", metav1.ConditionTrue))
		Expect(configMapExists(ctx, a, "x")).To(BeTrue())
		Expect(configMapExists(ctx, b, "y")).To(BeTrue())
		Expect(set.Annotations).To(HaveKeyWithValue(applyset.AdditionalNamespacesAnnotation,
			strings.Join([]string{min(a, b), max(a, b)}, ",")))

		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
				return err
			}
			set.Spec.Resources = []applyv1alpha1.Resource{member(a, "x")}
			return k8sClient.Update(ctx, set)
		})).To(Succeed())
		Eventually(func() bool { return configMapExists(ctx, b, "y") }).Should(BeFalse())
		Eventually(func() map[string]string {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return set.Annotations
		}).Should(HaveKeyWithValue(applyset.AdditionalNamespacesAnnotation, a))
	})

	It("needs a namespace on namespaced objects, having none of its own", func(ctx context.Context) {
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "no-namespace"}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = clusterAdmin(ctx)
		set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("a", "1")}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionTrue),
			HaveField("Message", ContainSubstring("ConfigMap a is namespaced and names no namespace"))))
	})
})

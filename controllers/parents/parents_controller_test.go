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

package parents

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// grantDelete lets the ServiceAccount account of namespace delete resources there.
func grantDelete(ctx context.Context, namespace, account, resources string) {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "delete-" + resources},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{resources}, Verbs: []string{"delete"}}}}
	ExpectWithOffset(1, k8sClient.Create(ctx, role)).To(Succeed())
	ExpectWithOffset(1, k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: account}}})).To(Succeed())
}

func newNamespace(ctx context.Context) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "parents-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

func configMaps(namespace string, names ...string) string {
	docs := make([]string, 0, len(names))
	for _, name := range names {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  k: v\n", name, namespace))
	}
	return strings.Join(docs, "---\n")
}

// applyWithKubectl applies manifests as the set of parent, as a user would.
func applyWithKubectl(ctx context.Context, parent, namespace, manifests string) {
	args := []string{"apply", "--server-side", "--prune", "--applyset=" + parent, "-f", "-"}
	if namespace != "" {
		args = append(args, "--namespace", namespace)
	}
	out, err := env.Kubectl(ctx, manifests, args...)
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), out)
}

// mySetID is the ID of the set kubectl keeps in the Secret my-set of namespace.
func mySetID(namespace string) string {
	return applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: namespace, Name: "my-set"}.ID()
}

func annotationsOf(ctx context.Context, obj client.Object) map[string]string {
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	return obj.GetAnnotations()
}

func exists(ctx context.Context, obj client.Object) func() bool {
	return func() bool {
		err := k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		Expect(client.IgnoreNotFound(err)).To(Succeed())
		return !apierrors.IsNotFound(err)
	}
}

var _ = Describe("Parents of other tools, verified only", Ordered, func() {
	BeforeAll(func() {
		startOperator(Options{OrphanPolicy: OrphanReport, OrphanGracePeriod: time.Second, Resync: time.Hour})
	})

	It("finds kubectl's Secret, ConfigMap and ClusterApplySet parents clean, with the IDs kubectl wrote", func(ctx context.Context) {
		ns, other := newNamespace(ctx), newNamespace(ctx)
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a", "b"))
		applyWithKubectl(ctx, "configmaps/web", ns, configMaps(ns, "c"))

		// kubectl uses a custom resource as a parent only once it carries the
		// tooling annotation and the right ID: it checks the ID this package computes.
		platform := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "platform-" + ns,
			Annotations: map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: ""},
			Labels: map[string]string{applyset.IDLabel: applyset.ParentKey{
				GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ClusterApplySet"}, Name: "platform-" + ns}.ID()},
		}}
		Expect(k8sClient.Create(ctx, platform)).To(Succeed())
		applyWithKubectl(ctx, "clusterapplysets.apply.applyset.dev/"+platform.Name, "",
			configMaps(ns, "d")+"---\n"+configMaps(other, "e"))

		secret := &corev1.Secret{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "my-set"}, secret)).To(Succeed())
		Expect(secret.Labels).To(HaveKeyWithValue(applyset.IDLabel, mySetID(ns)))
		Expect(annotationsOf(ctx, platform)).To(HaveKeyWithValue(applyset.AdditionalNamespacesAnnotation,
			strings.Join(sets.List(sets.New(ns, other)), ",")))

		for _, parent := range []struct{ namespace, name string }{{ns, "my-set"}, {ns, "web"}, {"default", platform.Name}} {
			Eventually(testenv.EventReasons(ctx, k8sClient, parent.namespace, parent.name)).
				Should(ContainElement("Normal/"+applyset.ReasonForeignTooling), "parent %s", parent.name)
			Expect(testenv.EventReasons(ctx, k8sClient, parent.namespace, parent.name)()).NotTo(ContainElement(HavePrefix("Warning/")))
		}
		// A parent without findings is counted clean, the plugin's word, whatever its members' health.
		Expect(testutil.ToFloat64(parentsGauge.WithLabelValues("kubectl", "clean"))).To(BeNumerically(">=", 3))
		Expect(testutil.ToFloat64(parentsGauge.WithLabelValues("kubectl", "healthy"))).To(BeZero())
	})

	It("reports a member of a kind the hint omits, and leaves kubectl's parent alone", func(ctx context.Context) {
		ns := newNamespace(ctx)
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a"))
		parent := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}}
		before := annotationsOf(ctx, parent)

		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: "behind-its-back", Labels: map[string]string{applyset.PartOfLabel: mySetID(ns)}}})).To(Succeed())

		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "my-set")).Should(ContainElement("Warning/" + membership.ReasonHintIncomplete))
		Consistently(func() map[string]string { return annotationsOf(ctx, parent) }).WithTimeout(2 * time.Second).Should(Equal(before))
	})

	It("reports a parent whose ID label was copied from another set and changes nothing", func(ctx context.Context) {
		ns := newNamespace(ctx)
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a"))
		copycat := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "copycat",
			Labels:      map[string]string{applyset.IDLabel: mySetID(ns)},
			Annotations: map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: ""},
		}}
		Expect(k8sClient.Create(ctx, copycat)).To(Succeed())

		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "copycat")).Should(ContainElement("Warning/" + applyset.ReasonIDMismatch))
		Consistently(func() map[string]string { return annotationsOf(ctx, copycat) }).WithTimeout(2 * time.Second).
			Should(HaveKeyWithValue(applyset.GroupKindsAnnotation, ""))
		Expect(exists(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}})()).To(BeTrue())
	})

	It("counts no object with a copied ID as the parent: the set's members become orphans with the real one", func(ctx context.Context) {
		ns := newNamespace(ctx)
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a"))
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "copycat",
			Labels:      map[string]string{applyset.IDLabel: mySetID(ns)},
			Annotations: map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: "ConfigMap"},
		}})).To(Succeed())
		Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}})).To(Succeed())
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "a")).Should(ContainElement("Warning/" + ReasonOrphanFound))
	})

	It("reports orphans when a parent is deleted, and deletes nothing under the report policy", func(ctx context.Context) {
		ns := newNamespace(ctx)
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a"))
		Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}})).To(Succeed())

		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "a")).Should(ContainElement("Warning/" + ReasonOrphanFound))
		Consistently(exists(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}})).
			WithTimeout(3 * time.Second).Should(BeTrue())
	})
})

var _ = Describe("kubectl's parents, repaired when an admin allows it", Ordered, func() {
	BeforeAll(func() {
		startOperator(Options{RepairTooling: []string{"kubectl"}, OrphanPolicy: OrphanReport, Resync: time.Hour})
	})

	It("adds a member's new kind to the hint, and kubectl's next apply still prunes", func(ctx context.Context) {
		ns := newNamespace(ctx)
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a", "b"))
		parent := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}}
		Expect(annotationsOf(ctx, parent)).To(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap"))

		By("labelling a ServiceAccount as a member with an update, which anyone who may update it could do")
		labelled := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "labelled",
			Labels: map[string]string{applyset.PartOfLabel: mySetID(ns)}}}
		Expect(k8sClient.Create(ctx, labelled)).To(Succeed())
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "my-set")).Should(ContainElement("Warning/" + membership.ReasonHintIncomplete))
		Consistently(func() map[string]string { return annotationsOf(ctx, parent) }).WithTimeout(2*time.Second).
			Should(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap"), "a kind only an update vouches for was added")
		Expect(k8sClient.Delete(ctx, labelled)).To(Succeed())

		By("applying a member of a new kind with kubectl's own field manager")
		extra := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "behind-its-back"}}
		out, err := env.Kubectl(ctx, fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata: {name: behind-its-back, namespace: %s, labels: {%s: %s}}\n",
			ns, applyset.PartOfLabel, mySetID(ns)), "apply", "--server-side", "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(func() map[string]string { return annotationsOf(ctx, parent) }).
			Should(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap,Secret"))
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "my-set")).Should(ContainElement("Normal/" + ReasonHintsResynced))

		By("applying again with kubectl, without b")
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a"))
		Expect(exists(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b"}})()).To(BeFalse())
		Expect(exists(ctx, extra)()).To(BeFalse(), "the member the hint now names is pruned too")
		Expect(exists(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}})()).To(BeTrue())
		// The hint keeps covering the remaining members; kubectl, not the operator, trims it.
		Consistently(func() (sets.Set[schema.GroupKind], error) {
			return applyset.ParseGroupKinds(annotationsOf(ctx, parent)[applyset.GroupKindsAnnotation])
		}).WithTimeout(2 * time.Second).Should(HaveKey(schema.GroupKind{Kind: "ConfigMap"}))
	})

	It("never takes a kind out of the hint while the tool is applying", func(ctx context.Context) {
		// kubectl writes the new kinds before it creates the members; a hint
		// trimmed to the members in that window would hide them from its prune.
		ns := newNamespace(ctx)
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a"))
		parent := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}}
		By("widening the hint to a kind that has no member yet, as kubectl does before it applies one")
		out, err := env.Kubectl(ctx, "", "annotate", "--overwrite", "-n", ns, "secret/my-set",
			applyset.GroupKindsAnnotation+"=ConfigMap,Secret")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "my-set")).Should(ContainElement("Normal/" + ReasonVerified))
		Consistently(func() map[string]string { return annotationsOf(ctx, parent) }).WithTimeout(2*time.Second).
			Should(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap,Secret"), "the operator trimmed a kind without members")

		for range 3 {
			applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a", "b"))
			parent := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}}
			Expect(annotationsOf(ctx, parent)).To(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap"))
		}
	})
})

var _ = Describe("Orphans, collected under the delete policy", Ordered, func() {
	BeforeAll(func() {
		startOperator(Options{OrphanPolicy: OrphanDelete, OrphanGracePeriod: 2 * time.Second, Resync: time.Hour, OrphanDeleter: "default"})
	})

	It("deletes orphans after the grace period, but never one another object owns", func(ctx context.Context) {
		ns := newNamespace(ctx)
		grantDelete(ctx, ns, "default", "configmaps")
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "plain", "owner"))
		owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "owner"}}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(owner), owner)).To(Succeed())
		owned := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "owned",
			Labels:          map[string]string{applyset.PartOfLabel: mySetID(ns)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}},
		}}
		Expect(k8sClient.Create(ctx, owned)).To(Succeed())
		updated := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "labelled-by-update",
			Labels: map[string]string{applyset.PartOfLabel: mySetID(ns)}}}
		Expect(k8sClient.Create(ctx, updated)).To(Succeed())
		keptBySet := &unstructured.Unstructured{}
		keptBySet.SetAPIVersion("v1")
		keptBySet.SetKind("ConfigMap")
		keptBySet.SetNamespace(ns)
		keptBySet.SetName("kept-by-its-set")
		keptBySet.SetLabels(map[string]string{applyset.PartOfLabel: mySetID(ns)})
		Expect(k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(keptBySet),
			client.FieldOwner(identity.MembersFieldManager))).To(Succeed())

		Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}})).To(Succeed())
		plain := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "plain"}}
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "plain")).Should(ContainElement("Warning/" + ReasonOrphanFound))
		Eventually(exists(ctx, plain)).WithTimeout(20 * time.Second).Should(BeFalse())
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "plain")).Should(ContainElement("Normal/" + ReasonOrphanDeleted))
		Expect(exists(ctx, owned)()).To(BeTrue(), "an orphan with an owner is left to garbage collection")
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "owned")).Should(ContainElement("Normal/" + ReasonOrphanKept))
		Expect(exists(ctx, updated)()).To(BeTrue(), "an orphan whose label no tool applied is never deleted")
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "labelled-by-update")).Should(ContainElement("Normal/" + ReasonOrphanKept))
		Expect(exists(ctx, keptBySet)()).To(BeTrue(), "an orphan the operator's own set left is never collected")
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "kept-by-its-set")).Should(ContainElement("Normal/" + ReasonOrphanKept))
	})

	It("deletes an orphan only as its namespace's ServiceAccount, and a cluster-scoped one never", func(ctx context.Context) {
		ns := newNamespace(ctx)
		grantDelete(ctx, ns, "default", "configmaps")
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "orphan-role-" + ns}}
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns + "-owned"}}
		// The account may delete the ConfigMap, not the Secret.
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "granted")+"---\n"+
			fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata: {name: forbidden, namespace: %s}\n---\n", ns)+
			fmt.Sprintf("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: %s}\n---\n", role.Name)+
			fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n", namespace.Name))
		Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}})).To(Succeed())

		Eventually(exists(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "granted"}})).
			WithTimeout(20 * time.Second).Should(BeFalse())
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "forbidden")).Should(ContainElement("Warning/" + ReasonOrphanKept))
		Expect(exists(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "forbidden"}})()).To(BeTrue())
		Eventually(testenv.EventReasons(ctx, k8sClient, "default", role.Name)).Should(ContainElement("Normal/" + ReasonOrphanKept))
		Expect(exists(ctx, role)()).To(BeTrue(), "a cluster-scoped orphan was deleted")
		Expect(exists(ctx, namespace)()).To(BeTrue(), "a Namespace orphan was deleted")
	})
})

var _ = Describe("Verification while a type cannot be listed", Ordered, func() {
	const group = "unlistable.parents.example.com"
	var stuckKind = "Stuck." + group

	BeforeAll(func(ctx context.Context) {
		crd := testenv.UnconvertibleCRD(group, "Stuck")
		Expect(k8sClient.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, crd))).To(Succeed()) })
		stuck := &unstructured.Unstructured{}
		stuck.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Stuck"})
		stuck.SetNamespace("default")
		stuck.SetName("s")
		stuck.SetLabels(map[string]string{applyset.PartOfLabel: "applyset-somewhere-v1"})
		Eventually(func() error { return k8sClient.Create(ctx, stuck) }).Should(Succeed())
		startOperator(Options{OrphanPolicy: OrphanDelete, OrphanGracePeriod: time.Second, Resync: time.Hour, ListTimeout: 3 * time.Second})
	})

	It("reports the parents whose hint names the type, verifies the others, and says which type in a metric", func(ctx context.Context) {
		ns := newNamespace(ctx)
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "a"))
		affected := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "covers-stuck",
			Labels: map[string]string{applyset.IDLabel: applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"},
				Namespace: ns, Name: "covers-stuck"}.ID()},
			Annotations: map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: "ConfigMap," + stuckKind},
		}}
		Expect(k8sClient.Create(ctx, affected)).To(Succeed())

		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "covers-stuck")).
			WithTimeout(time.Minute).Should(ContainElement("Warning/" + membership.ReasonMembershipIncomplete))
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "my-set")).Should(ContainElement("Normal/" + applyset.ReasonForeignTooling))
		Expect(testenv.EventReasons(ctx, k8sClient, ns, "my-set")()).NotTo(ContainElement("Warning/" + membership.ReasonMembershipIncomplete))
		Expect(testutil.ToFloat64(unlistableGauge.WithLabelValues(group + "/v2, Resource=stucks"))).To(BeEquivalentTo(1))
	})

	It("collects no orphan while membership is incomplete", func(ctx context.Context) {
		ns := newNamespace(ctx)
		applyWithKubectl(ctx, "my-set", ns, configMaps(ns, "plain"))
		Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}})).To(Succeed())
		plain := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "plain"}}
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "plain")).Should(ContainElement("Warning/" + ReasonOrphanFound))
		Consistently(exists(ctx, plain)).WithTimeout(4*time.Second).Should(BeTrue(), "an orphan was deleted while a type could not be listed")
	})
})

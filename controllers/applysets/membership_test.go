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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// labelledConfigMap server-side applies a ConfigMap carrying the part-of
// label of setID, under manager: what a controller that copies its parent's
// labels onto its children does.
func labelledConfigMap(ctx context.Context, ns, name, setID, manager string) {
	GinkgoHelper()
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetNamespace(ns)
	cm.SetName(name)
	cm.SetLabels(map[string]string{applyset.PartOfLabel: setID})
	Expect(k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(cm), client.FieldOwner(manager))).To(Succeed())
}

var _ = Describe("Membership", func() {
	It("prunes and deletes only what the set applied, whoever else writes its label", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "web", inlineConfigMap("a", "1"), inlineConfigMap("leaving", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap a", "ConfigMap leaving"))
		Expect(set.Status.Members).To(HaveEach(HaveField("UID", Not(BeEmpty()))))
		id := set.Status.ApplySetID

		// What a person does by hand.
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "victim"},
			Data: map[string]string{"k": "v"}})).To(Succeed())
		out, err := env.Kubectl(ctx, "", "label", "configmap", "victim", "-n", ns, applyset.PartOfLabel+"="+id)
		Expect(err).NotTo(HaveOccurred(), out)
		labelledConfigMap(ctx, ns, "child", id, "copying-controller")
		// Any client may name any field manager: the operator's name proves nothing either.
		labelledConfigMap(ctx, ns, "forged", id, identity.MembersFieldManager)

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.Resources = set.Spec.Resources[:1] })
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "leaving")).To(BeFalse(), "a member that left the set was not pruned")
		for _, name := range []string{"victim", "child", "forged"} {
			Expect(configMapExists(ctx, ns, name)).To(BeTrue(), "%s was pruned, but the set never applied it", name)
		}
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap a"))
		Expect(set.Status.ForeignMembers).NotTo(BeNil())
		Expect(set.Status.ForeignMembers.Count).To(BeEquivalentTo(3))
		Expect(set.Status.ForeignMembers.Items).To(ContainElements(
			SatisfyAll(HaveField("Name", "victim"), HaveField("LabelledBy", "kubectl-label (Update)")),
			SatisfyAll(HaveField("Name", "child"), HaveField("LabelledBy", "copying-controller (Apply)")),
		))
		Expect(condition(ctx, set, applyv1alpha1.ConditionReady)()).To(HaveField("Message", ContainSubstring("3 foreign objects")))
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "web")).Should(ContainElement("Warning/" + ReasonForeignMembers))

		deleteAndWait(ctx, set)
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse(), "deleting the set kept its member")
		for _, name := range []string{"victim", "child", "forged"} {
			Expect(configMapExists(ctx, ns, name)).To(BeTrue(), "deleting the set deleted %s, which it never applied", name)
		}
	})

	It("leaves a ClusterApplySet's foreign objects too, also children a controller labelled and owns", func(ctx context.Context) {
		ns := bareNamespace(ctx)
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "platform-" + ns}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = clusterAdmin(ctx)
		set.Spec.AdditionalNamespaces = []string{ns}
		set.Spec.Resources = []applyv1alpha1.Resource{namespacedConfigMap(ns, "parent"), namespacedConfigMap(ns, "leaving")}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Status", metav1.ConditionTrue))
		id := set.Status.ApplySetID
		parent := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "parent"}, parent)).To(Succeed())
		// A controller's child of a member, with the member's labels copied and an owner reference to it.
		owned := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "owned-child", Labels: map[string]string{applyset.PartOfLabel: id},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "parent", UID: parent.UID}}},
			Data: map[string]string{"k": "v"}}
		Expect(k8sClient.Create(ctx, owned, client.FieldOwner("child-controller"))).To(Succeed())
		labelledConfigMap(ctx, ns, "forged", id, identity.MembersFieldManager)

		updateSet(ctx, set, func(set *applyv1alpha1.ClusterApplySet) { set.Spec.Resources = set.Spec.Resources[:1] })
		Eventually(func() []string {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return memberNames(set.Status.Members)
		}).Should(ConsistOf("ConfigMap parent"))
		Expect(configMapExists(ctx, ns, "leaving")).To(BeFalse())
		Expect(set.Status.ForeignMembers).NotTo(BeNil())
		Expect(set.Status.ForeignMembers.Count).To(BeEquivalentTo(2))

		deleteAndWait(ctx, set)
		Expect(configMapExists(ctx, ns, "parent")).To(BeFalse())
		Expect(configMapExists(ctx, ns, "owned-child")).To(BeTrue(), "left to garbage collection, not deleted by the set")
		Expect(labelled(ctx, ns, "forged")).To(Equal(id), "a foreign object was released")
	})

	It("adopts an object that carries its label once it declares it", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "adopter", inlineConfigMap("a", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		labelledConfigMap(ctx, ns, "stray", set.Status.ApplySetID, "someone")

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = append(set.Spec.Resources, inlineConfigMap("stray", "1"))
		})
		readyFor(ctx, set)
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap a", "ConfigMap stray"))
		Expect(set.Status.ForeignMembers).To(BeNil())

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.Resources = set.Spec.Resources[:1] })
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "stray")).To(BeFalse(), "a member the set applied was not pruned")
	})

	DescribeTable("deleting a set that changes nothing leaves every member as it is",
		func(ctx context.Context, change func(*applyv1alpha1.CommonSpec), kind, reason string) {
			ns := newNamespace(ctx)
			set := newSet(ns, "still", inlineConfigMap("a", "1"))
			Expect(k8sClient.Create(ctx, set)).To(Succeed())
			readyFor(ctx, set)
			id := set.Status.ApplySetID
			updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { change(&set.Spec.CommonSpec) })
			Eventually(func() metav1.Condition {
				return ptr.Deref(condition(ctx, set, kind)(), metav1.Condition{})
			}).Should(SatisfyAll(HaveField("Reason", reason), HaveField("ObservedGeneration", set.Generation)))

			deleteAndWait(ctx, set)
			Expect(labelled(ctx, ns, "a")).To(Equal(id), "the member was deleted or released")
			Eventually(testenv.EventReasons(ctx, k8sClient, ns, "still")).Should(ContainElement("Normal/" + ReasonMembersKept))
		},
		Entry("suspended", func(spec *applyv1alpha1.CommonSpec) { spec.Suspend = ptr.To(true) },
			applyv1alpha1.ConditionReconciling, applyv1alpha1.ReasonSuspended),
		Entry("previewing", func(spec *applyv1alpha1.CommonSpec) { spec.DryRun = ptr.To(true) },
			applyv1alpha1.ConditionReady, applyv1alpha1.ReasonPreviewed),
	)

	It("keeps the members of a suspended ClusterApplySet when it is deleted", func(ctx context.Context) {
		ns := bareNamespace(ctx)
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "still-" + ns}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = clusterAdmin(ctx)
		set.Spec.AdditionalNamespaces = []string{ns}
		set.Spec.Resources = []applyv1alpha1.Resource{namespacedConfigMap(ns, "a")}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Status", metav1.ConditionTrue))
		id := set.Status.ApplySetID
		updateSet(ctx, set, func(set *applyv1alpha1.ClusterApplySet) { set.Spec.Suspend = ptr.To(true) })
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReconciling)).Should(HaveField("Reason", applyv1alpha1.ReasonSuspended))

		deleteAndWait(ctx, set)
		Expect(labelled(ctx, ns, "a")).To(Equal(id))
	})
})

var _ = Describe("An empty set", func() {
	It("stops instead of pruning every member, unless spec.allowEmpty says so", func(ctx context.Context) {
		ns := newNamespace(ctx)
		source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manifests"},
			Data: map[string]string{"app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {k: v}\n"}}
		Expect(k8sClient.Create(ctx, source)).To(Succeed())
		set := newSet(ns, "emptied")
		set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: "manifests"}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		source.Data["app.yaml"] = "# emptied by mistake\n"
		Expect(k8sClient.Update(ctx, source)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", applyv1alpha1.ReasonEmptySource),
			HaveField("Message", ContainSubstring("1 members"))))
		Expect(condition(ctx, set, applyv1alpha1.ConditionStalled)()).To(HaveField("Status", metav1.ConditionTrue))
		Expect(configMapExists(ctx, ns, "x")).To(BeTrue(), "an emptied source pruned the set's member")

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.AllowEmpty = ptr.To(true) })
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "x")).To(BeFalse(), "spec.allowEmpty did not let the set prune its member")
		Expect(set.Status.Members).To(BeEmpty())
	})
})

var _ = Describe("An emptied source", func() {
	It("stops the set instead of pruning what it held, and says which source", func(ctx context.Context) {
		ns := newNamespace(ctx)
		for name, object := range map[string]string{"frontend": "web", "backend": "api"} {
			Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Data: map[string]string{"app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + object + "}\n"}})).To(Succeed())
		}
		set := newSet(ns, "two-sources")
		set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: "frontend"},
			{Kind: applyv1alpha1.SourceKindConfigMap, Name: "backend"}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(set.Status.Sources).To(ConsistOf(
			SatisfyAll(HaveField("Name", "frontend"), HaveField("Objects", HaveValue(BeEquivalentTo(1)))),
			SatisfyAll(HaveField("Name", "backend"), HaveField("Objects", HaveValue(BeEquivalentTo(1))))))

		backend := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "backend"}, backend)).To(Succeed())
		backend.Data = map[string]string{"app.yaml": ""}
		Expect(k8sClient.Update(ctx, backend)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(SatisfyAll(
			HaveField("Reason", applyv1alpha1.ReasonEmptySource), HaveField("Message", ContainSubstring("ConfigMap "+ns+"/backend (1 objects before)"))))
		Expect(configMapExists(ctx, ns, "api")).To(BeTrue(), "the emptied source's object was pruned")

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.Sources = set.Spec.Sources[:1] })
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "api")).To(BeFalse(), "taking the source out of the set did not prune what it held")
		Expect(configMapExists(ctx, ns, "web")).To(BeTrue())
	})
})

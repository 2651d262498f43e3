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

package membership

import (
	"context"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func labelled(setID string) map[string]string {
	return map[string]string{applyset.PartOfLabel: setID}
}

// changes records the set IDs the index reports.
type changes struct {
	mu  sync.Mutex
	ids sets.Set[string]
}

func (c *changes) record(ids ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ids.Insert(ids...)
}

func (c *changes) seen() sets.Set[string] {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids.Clone()
}

var _ = Describe("The membership index", func() {
	var ns string

	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "members-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns = namespace.Name
	})

	It("indexes the objects that claim a set, by ID and kind, and reports changes", func(ctx context.Context) {
		const setA, setB = "applyset-a-v1", "applyset-b-v1"
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: "in-a", Labels: labelled(setA)}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: "in-a", Labels: labelled(setA)}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: "in-no-set", Labels: map[string]string{"app": "x"}}})).To(Succeed())

		idx := newIndex()
		reported := &changes{ids: sets.New[string]()}
		idx.OnChange(reported.record)
		start(ctx, idx)

		Expect(idx.Members(setA)).To(ConsistOf(
			SatisfyAll(HaveField("GroupKind", schema.GroupKind{Kind: "ConfigMap"}), HaveField("Name", "in-a"),
				HaveField("Namespace", ns), HaveField("UID", Not(BeEmpty()))),
			SatisfyAll(HaveField("GroupKind", schema.GroupKind{Kind: "Secret"}), HaveField("Name", "in-a")),
		))
		Expect(idx.GroupKinds(setA)).To(Equal(sets.New(schema.GroupKind{Kind: "ConfigMap"}, schema.GroupKind{Kind: "Secret"})))
		Expect(idx.SetIDs().Has(setA)).To(BeTrue())
		Expect(reported.seen().Has(setA)).To(BeTrue())

		By("moving a member to another set")
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "in-a"}, cm)).To(Succeed())
		cm.Labels = labelled(setB)
		Expect(k8sClient.Update(ctx, cm)).To(Succeed())
		Eventually(func() []Member { return idx.Members(setB) }).Should(ConsistOf(HaveField("Name", "in-a")))
		Expect(idx.GroupKinds(setA)).To(Equal(sets.New(schema.GroupKind{Kind: "Secret"})))
		Eventually(reported.seen).Should(HaveKey(setB))

		By("deleting a member")
		Expect(k8sClient.Delete(ctx, cm)).To(Succeed())
		Eventually(func() []Member { return idx.Members(setB) }).Should(BeEmpty())
	})

	It("follows CRDs as they are created and deleted", func(ctx context.Context) {
		idx := newIndex()
		start(ctx, idx)
		widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
		Expect(idx.Resources()).NotTo(ContainElement(widgets))

		crd := testenv.OpenCRD("example.com", "Widget")
		Expect(k8sClient.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, crd))).To(Succeed())
		})
		Eventually(idx.Resources).WithTimeout(30 * time.Second).Should(ContainElement(widgets))

		widget := &unstructured.Unstructured{}
		widget.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
		widget.SetNamespace(ns)
		widget.SetName("w")
		widget.SetLabels(labelled("applyset-w-v1"))
		Expect(k8sClient.Create(ctx, widget)).To(Succeed())
		Eventually(func() sets.Set[schema.GroupKind] { return idx.GroupKinds("applyset-w-v1") }).
			Should(Equal(sets.New(schema.GroupKind{Group: "example.com", Kind: "Widget"})))

		Expect(k8sClient.Delete(ctx, crd)).To(Succeed())
		Eventually(idx.Resources).WithTimeout(30 * time.Second).ShouldNot(ContainElement(widgets))
		Expect(idx.Members("applyset-w-v1")).To(BeEmpty())
	})
})

var _ = Describe("The membership index, on who wrote a member's label and what it cannot list", func() {
	var ns string

	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "members-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns = namespace.Name
	})

	It("records which field managers applied the part-of label, and none for a label an update wrote", func(ctx context.Context) {
		const setID = "applyset-who-v1"
		configMap := func(name string, labels map[string]string) *unstructured.Unstructured {
			cm := &unstructured.Unstructured{}
			cm.SetAPIVersion("v1")
			cm.SetKind("ConfigMap")
			cm.SetNamespace(ns)
			cm.SetName(name)
			cm.SetLabels(labels)
			return cm
		}
		Expect(k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(configMap("applied", labelled(setID))),
			client.FieldOwner("kubectl"))).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "updated",
			Labels: labelled(setID)}}, client.FieldOwner("kubectl"))).To(Succeed())
		Expect(k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(configMap("applied-without-label", nil)),
			client.FieldOwner("kubectl"))).To(Succeed())
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "applied-without-label"}, cm)).To(Succeed())
		cm.Labels = labelled(setID)
		Expect(k8sClient.Update(ctx, cm, client.FieldOwner("someone"))).To(Succeed())

		idx := newIndex()
		start(ctx, idx)
		Expect(idx.Members(setID)).To(ConsistOf(
			SatisfyAll(HaveField("Name", "applied"), HaveField("PartOfAppliedBy", ConsistOf("kubectl"))),
			SatisfyAll(HaveField("Name", "updated"), HaveField("PartOfAppliedBy", BeEmpty())),
			SatisfyAll(HaveField("Name", "applied-without-label"), HaveField("PartOfAppliedBy", BeEmpty())),
		))
	})

	It("goes on without a type it cannot list, and names it", func(ctx context.Context) {
		crd := testenv.UnconvertibleCRD("unlistable.example.com", "Stuck")
		Expect(k8sClient.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, crd))).To(Succeed()) })
		stuck := &unstructured.Unstructured{}
		stuck.SetGroupVersionKind(schema.GroupVersionKind{Group: "unlistable.example.com", Version: "v1", Kind: "Stuck"})
		stuck.SetNamespace(ns)
		stuck.SetName("s")
		stuck.SetLabels(labelled("applyset-stuck-v1"))
		Eventually(func() error { return k8sClient.Create(ctx, stuck) }).Should(Succeed())

		idx := newIndex()
		idx.watcher.opts.ListTimeout = 5 * time.Second
		runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		DeferCleanup(cancel)
		Expect(idx.Start(runCtx)).To(Succeed())
		Eventually(idx.SyncState).WithTimeout(30 * time.Second).Should(SatisfyAll(
			HaveField("Listed", BeTrue()),
			HaveField("Failing", ConsistOf(SatisfyAll(
				HaveField("ResourceType.GroupKind", schema.GroupKind{Group: "unlistable.example.com", Kind: "Stuck"}),
				HaveField("Err", HaveOccurred())))),
		))
		Expect(idx.HasSynced()).To(BeFalse(), "an index missing a type claims it listed everything")
	})
})

func TestKeepMemberMetadata(t *testing.T) {
	labelled := metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{".":{},"f:applyset.kubernetes.io/part-of":{}}}}`)
	other := metav1.NewFieldsV1(`{"f:data":{"f:applyset.kubernetes.io/part-of":{}}}`)
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Annotations: map[string]string{"big": "value", apply.DependsOnAnnotation: "/namespaces/ns/ConfigMap/first"},
		ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, FieldsV1: labelled},
			{Manager: "editor", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: labelled},
			{Manager: "helm", Operation: metav1.ManagedFieldsOperationApply, FieldsV1: other},
		},
	}}
	for pass := 1; pass <= 2; pass++ { // informers may transform an object twice
		out, err := keepMemberMetadata(obj)
		if err != nil {
			t.Fatal(err)
		}
		obj = out.(*metav1.PartialObjectMetadata)
		if len(obj.ManagedFields) != 1 || obj.ManagedFields[0].Manager != "kubectl" {
			t.Fatalf("pass %d: kept the entries %v, want kubectl's alone", pass, obj.ManagedFields)
		}
		if got := applyset.PartOfAppliers(obj.ManagedFields); len(got) != 1 || got[0] != "kubectl" {
			t.Fatalf("pass %d: the label's appliers are %v, want [kubectl]", pass, got)
		}
		if len(obj.Annotations) != 1 || obj.Annotations[apply.DependsOnAnnotation] != "/namespaces/ns/ConfigMap/first" ||
			obj.ManagedFields[0].FieldsV1 != nil {
			t.Fatalf("pass %d: kept %v and %v, want the depends-on annotation alone", pass, obj.Annotations, obj.ManagedFields[0].FieldsV1)
		}
	}
}

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
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// heard records what a Parents tracker tells its listeners.
type heard struct {
	mu      sync.Mutex
	changed []ParentRef
	deleted []string
}

func (h *heard) change(ref ParentRef) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.changed = append(h.changed, ref)
}

func (h *heard) delete(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.deleted = append(h.deleted, id)
}

func (h *heard) changes() []ParentRef {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.changed)
}

func (h *heard) deletions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.deleted)
}

var _ = Describe("The parent tracker", func() {
	var ns string

	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "parents-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns = namespace.Name
	})

	It("watches Secrets and ConfigMaps with an ID label, and tells of changes and deletions", func(ctx context.Context) {
		secretKey := ParentRef{Type: ResourceType{Resource: schema.GroupVersionResource{Version: "v1", Resource: "secrets"},
			GroupKind: schema.GroupKind{Kind: "Secret"}, Namespaced: true}, Namespace: ns, Name: "my-set"}
		id := secretKey.Key().ID()
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: "my-set", Labels: map[string]string{applyset.IDLabel: id}}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: "copied", Labels: map[string]string{applyset.IDLabel: id}}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-set"}})).To(Succeed())

		parents := newParents()
		h := &heard{}
		parents.OnChange(h.change)
		parents.OnDeleted(h.delete)
		start(ctx, parents)

		Expect(parents.ParentsOf(id)).To(ConsistOf(secretKey), "an object with a copied ID is no parent of the set")
		copied, ok := parents.Get(ParentRef{Type: ResourceType{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespaced: true}, Namespace: ns, Name: "copied"})
		Expect(ok).To(BeTrue(), "the object with the copied ID is still watched, to be reported")
		Expect(copied.Labels).To(HaveKeyWithValue(applyset.IDLabel, id))
		got, ok := parents.Get(secretKey)
		Expect(ok).To(BeTrue())
		Expect(got.Labels).To(HaveKeyWithValue(applyset.IDLabel, id))
		Expect(got.ManagedFields).To(BeEmpty(), "managed fields are not kept")
		_, ok = parents.Get(ParentRef{Type: secretKey.Type, Namespace: ns, Name: "no-set"})
		Expect(ok).To(BeFalse(), "a Secret without an ID label is no parent")
		Expect(h.changes()).To(ContainElement(secretKey))

		Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-set"}})).To(Succeed())
		Eventually(h.deletions).Should(ContainElement(id))
		Eventually(func() []ParentRef { return parents.ParentsOf(id) }).Should(BeEmpty(),
			"the object with the copied ID does not become the parent")
	})

	It("follows CRDs labelled as parent types, and only those", func(ctx context.Context) {
		parents := newParents()
		start(ctx, parents)
		gizmos := schema.GroupVersionResource{Group: "parents.example.com", Version: "v1", Resource: "gizmos"}
		crd := testenv.OpenCRD(gizmos.Group, "Gizmo")
		Expect(k8sClient.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, crd))).To(Succeed()) })

		gizmo := &unstructured.Unstructured{}
		gizmo.SetGroupVersionKind(gizmos.GroupVersion().WithKind("Gizmo"))
		gizmo.SetNamespace(ns)
		gizmo.SetName("g")
		ref := ParentRef{Type: ResourceType{Resource: gizmos, GroupKind: schema.GroupKind{Group: gizmos.Group, Kind: "Gizmo"},
			Namespaced: true}, Namespace: ns, Name: "g"}
		gizmo.SetLabels(map[string]string{applyset.IDLabel: ref.Key().ID()})
		Eventually(func() error { return k8sClient.Create(ctx, gizmo) }).Should(Succeed())
		Expect(parents.watcher.resources()).NotTo(ContainElement(gizmos), "the CRD is not labelled as a parent type")

		By("labelling the CRD as a parent type")
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(crd), crd)).To(Succeed())
		crd.Labels = map[string]string{applyset.ParentTypeLabel: "true"}
		Expect(k8sClient.Update(ctx, crd)).To(Succeed())
		Eventually(func() []ParentRef { return parents.ParentsOf(ref.Key().ID()) }).WithTimeout(30 * time.Second).
			Should(ConsistOf(ref))

		By("deleting the CRD")
		Expect(k8sClient.Delete(ctx, crd)).To(Succeed())
		Eventually(parents.watcher.resources).WithTimeout(30 * time.Second).ShouldNot(ContainElement(gizmos))
		Expect(parents.ParentsOf(ref.Key().ID())).To(BeEmpty())
	})
})

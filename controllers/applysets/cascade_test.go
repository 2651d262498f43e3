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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// widgetsCRD declares a CRD of Widgets in group, with the cascade annotation when cascade is set.
func widgetsCRD(group string, cascade bool) applyv1alpha1.Resource {
	metadata := map[string]any{"name": "widgets." + group}
	if cascade {
		metadata["annotations"] = map[string]any{inventory.CascadeAnnotation: "allow"}
	}
	return object(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": metadata,
		"spec": map[string]any{"group": group, "scope": "Namespaced",
			"names": map[string]any{"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}})
}

// clusterSet is a ClusterApplySet acting as a cluster admin, reaching namespaces.
func clusterSet(ctx context.Context, name string, namespaces ...string) *applyv1alpha1.ClusterApplySet {
	GinkgoHelper()
	set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: name}}
	set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = clusterAdmin(ctx)
	set.Spec.AdditionalNamespaces = namespaces
	set.Spec.Wait = ptr.To(false)
	return set
}

// skipped is the reason status.plan gives for keeping the object named name, "" when it names none.
func skipped(ctx context.Context, set client.Object, name string) func() string {
	return func() string {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		if plan := set.(applyv1alpha1.Set).GetSetStatus().Plan; plan != nil {
			for _, s := range plan.Skipped {
				if s.Name == name {
					return s.Reason
				}
			}
		}
		return ""
	}
}

// deletionStarted reports whether obj is gone or on its way, for Eventually.
func deletionStarted(ctx context.Context, obj client.Object) func() bool {
	return func() bool {
		err := k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		Expect(client.IgnoreNotFound(err)).To(Succeed())
		return apierrors.IsNotFound(err) || !obj.GetDeletionTimestamp().IsZero()
	}
}

var _ = Describe("No cascade by surprise", func() {
	It("keeps a CRD that left the set while another's object of its kind exists, and deletes it once its declaration allows",
		func(ctx context.Context) {
			ns := bareNamespace(ctx)
			group := ns + ".example.com"
			set := clusterSet(ctx, ns, ns)
			set.Spec.Resources = []applyv1alpha1.Resource{widgetsCRD(group, false), namespacedConfigMap(ns, "stays")}
			Expect(k8sClient.Create(ctx, set)).To(Succeed())
			Eventually(readyCondition(ctx, set)).Should(HaveField("Status", metav1.ConditionTrue))
			theirs := &unstructured.Unstructured{}
			theirs.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"})
			theirs.SetNamespace(ns)
			theirs.SetName("theirs")
			Eventually(func() error { return k8sClient.Create(ctx, theirs) }).Should(Succeed())

			updateSet(ctx, set, func(set *applyv1alpha1.ClusterApplySet) { set.Spec.Resources = set.Spec.Resources[1:] })
			Eventually(skipped(ctx, set, "widgets."+group)).Should(ContainSubstring("1 Widget." + group +
				" that this prune does not delete still exists (" + ns + "/theirs)"))
			Expect(readyCondition(ctx, set)()).To(HaveField("Reason", applyv1alpha1.ReasonPruneSkipped))
			crd := &metav1.PartialObjectMetadata{}
			crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
			crd.SetName("widgets." + group)
			Consistently(deletionStarted(ctx, crd)).WithTimeout(2*time.Second).Should(BeFalse(), "the CRD went with another's Widget")
			Expect(exists(ctx, theirs)()).To(BeTrue())

			By("declaring it again, allowed to cascade, then removing it")
			updateSet(ctx, set, func(set *applyv1alpha1.ClusterApplySet) {
				set.Spec.Resources = []applyv1alpha1.Resource{widgetsCRD(group, true), namespacedConfigMap(ns, "stays")}
			})
			Eventually(func() []applyv1alpha1.Member {
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
				return set.Status.Members
			}).Should(ContainElement(SatisfyAll(HaveField("Name", "widgets."+group), HaveField("Cascade", Equal(ptr.To(true))))))
			updateSet(ctx, set, func(set *applyv1alpha1.ClusterApplySet) { set.Spec.Resources = set.Spec.Resources[1:] })
			Eventually(deletionStarted(ctx, crd)).Should(BeTrue())
			Eventually(exists(ctx, theirs)).Should(BeFalse(), "the CRD's deletion did not take its Widgets")
		})

	Context("deleting a set that applied a Namespace", func() {
		namespaceOf := func(name string) applyv1alpha1.Resource {
			return object(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}})
		}

		It("deletes its members there, and keeps and releases the Namespace while another's object lives in it", func(ctx context.Context) {
			fresh := "own-" + bareNamespace(ctx)
			set := clusterSet(ctx, fresh, fresh)
			set.Spec.Resources = []applyv1alpha1.Resource{namespaceOf(fresh), namespacedConfigMap(fresh, "mine")}
			Expect(k8sClient.Create(ctx, set)).To(Succeed())
			Eventually(readyCondition(ctx, set)).Should(HaveField("Status", metav1.ConditionTrue))
			Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: fresh, Name: "theirs"}})).To(Succeed())

			deleteAndWait(ctx, set)
			Expect(configMapExists(ctx, fresh, "mine")).To(BeFalse())
			Expect(configMapExists(ctx, fresh, "theirs")).To(BeTrue())
			namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fresh}}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(namespace), namespace)).To(Succeed())
			Expect(namespace.DeletionTimestamp).To(BeNil(), "the Namespace was deleted with another's ConfigMap in it")
			Expect(namespace.Labels).NotTo(HaveKey(applyset.PartOfLabel), "the kept Namespace still names the deleted set")
			Eventually(testenv.EventReasons(ctx, k8sClient, "default", fresh)).Should(ContainElement("Normal/" + ReasonReleased))
		})

		It("deletes the Namespace when it holds only the set's members and what Kubernetes puts there", func(ctx context.Context) {
			fresh := "own-" + bareNamespace(ctx)
			set := clusterSet(ctx, fresh, fresh)
			set.Spec.Resources = []applyv1alpha1.Resource{namespaceOf(fresh), namespacedConfigMap(fresh, "mine")}
			Expect(k8sClient.Create(ctx, set)).To(Succeed())
			Eventually(readyCondition(ctx, set)).Should(HaveField("Status", metav1.ConditionTrue))
			// What the controller manager, which envtest does not run, would add.
			Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: fresh, Name: "default"}})).To(Succeed())
			Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: fresh, Name: "kube-root-ca.crt"}})).To(Succeed())
			DeferCleanup(func(ctx context.Context) {
				// No namespace controller runs here, so the Namespace never goes, and the set would wait for it forever.
				Expect(client.IgnoreNotFound(retry.RetryOnConflict(retry.DefaultRetry, func() error {
					if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
						return err
					}
					controllerutil.RemoveFinalizer(set, applyv1alpha1.MembersFinalizer)
					return k8sClient.Update(ctx, set)
				}))).To(Succeed())
			})

			Expect(k8sClient.Delete(ctx, set)).To(Succeed())
			Eventually(deletionStarted(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fresh}})).Should(BeTrue())
			Expect(configMapExists(ctx, fresh, "mine")).To(BeFalse())
		})
	})
})

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

// Package uninstall proves that uninstalling the operator (deleting its
// CustomResourceDefinitions, as kubectl delete -k config/default and make
// undeploy do) deletes no workload it applied. It has a control plane of its
// own: the test deletes the CRDs every other suite needs.
package uninstall

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestUninstall(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Uninstall suite")
}

func resource(obj map[string]any) applyv1alpha1.Resource {
	r, err := applyv1alpha1.NewResource(obj)
	Expect(err).NotTo(HaveOccurred())
	return r
}

var _ = Describe("Uninstalling the operator", func() {
	It("deletes its sets but none of their members, whatever their deletionPolicy", func(ctx context.Context) {
		env := testenv.StartForSpecs(ctx)
		c := env.Client
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
		ns, err := testenv.TenantNamespace(ctx, c, "workloads-")
		Expect(err).NotTo(HaveOccurred())

		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "argocd"}}
		set.Spec.DeletionPolicy = applyv1alpha1.DeletionPolicyDelete
		set.Spec.Resources = []applyv1alpha1.Resource{
			resource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "argocd-cm"}}),
			resource(map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "argocd-server"}}),
		}
		Expect(c.Create(ctx, set)).To(Succeed())
		Eventually(func() bool {
			Expect(c.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return apimeta.IsStatusConditionTrue(set.Status.Conditions, applyv1alpha1.ConditionReady)
		}).Should(BeTrue(), "the set never became Ready")
		id := set.Status.ApplySetID

		for _, name := range []string{"applysets.apply.applyset.dev", "clusterapplysets.apply.applyset.dev"} {
			Expect(c.Delete(ctx, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
		}
		Eventually(func() bool {
			err := c.Get(ctx, client.ObjectKey{Name: "applysets.apply.applyset.dev"}, &apiextensionsv1.CustomResourceDefinition{})
			return apierrors.IsNotFound(err)
		}).WithTimeout(time.Minute).Should(BeTrue(), "the CRD was never deleted: the set's finalizer held it")

		for _, obj := range []client.Object{
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "argocd-cm"}},
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "argocd-server"}},
		} {
			Expect(c.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed(), "uninstalling deleted %s", obj.GetName())
			Expect(obj.GetLabels()).To(HaveKeyWithValue(applyset.PartOfLabel, id),
				"the member was released: a reinstalled set with the same name adopts it again")
		}
		Eventually(testenv.EventReasons(ctx, c, ns, "argocd")).Should(ContainElement("Normal/" + applysets.ReasonMembersKept))
	})
})

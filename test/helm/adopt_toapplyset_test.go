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

package helm

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/kube"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("kubectl applyset adopt --from helm/RELEASE --to applyset", Ordered, func() {
	BeforeAll(func() {
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
	})

	It("creates a set declaring the release's manifest; the set owns just that, and Helm's own labels and the replicas stay", func(ctx context.Context) {
		ns := namespace(ctx)
		Expect(testenv.GrantDefault(ctx, env.Client, ns)).To(Succeed())
		chart, err := loader.Load("testdata/api")
		Expect(err).NotTo(HaveOccurred())
		install := action.NewInstall(helmConfig(ns))
		install.ReleaseName, install.Namespace, install.WaitStrategy = "api", ns, kube.HookOnlyStrategy
		_, err = install.RunWithContext(ctx, chart, nil)
		Expect(err).NotTo(HaveOccurred())
		out, err := env.Kubectl(ctx, "", "scale", "deployment/api", "-n", ns, "--replicas=3")
		Expect(err).NotTo(HaveOccurred(), out)
		cm, d := &corev1.ConfigMap{}, &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "api-settings"}, cm)).To(Succeed())
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "api"}, d)).To(Succeed())
		Expect(cm.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "Helm"))

		out, err = plugin(ctx, "adopt", "applyset/api", "-n", ns, "--from", "helm/api", "--to", "applyset", "--yes")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("declares the old tool's manifest"))
		Expect(out).To(ContainSubstring("and the fields helm applied that the set declares handed to it"))
		set := &applyv1alpha1.ApplySet{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "api"}, set)).To(Succeed())
		Expect(set.Spec.Resources).To(HaveLen(2))
		becomesReady(ctx, set)
		Expect(set.Status.Members).To(HaveLen(2))

		adopted := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), adopted)).To(Succeed())
		Expect(adopted.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, set.Labels[applyset.IDLabel]))
		Expect(adopted.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "Helm"), "the set took Helm's own label, which it does not declare")
		helmEntry := ""
		for _, e := range adopted.ManagedFields {
			if e.Manager == "helm" && e.Operation == metav1.ManagedFieldsOperationApply {
				helmEntry = e.FieldsV1.GetRawString()
			}
		}
		Expect(helmEntry).To(ContainSubstring("app.kubernetes.io/managed-by"), "Helm lost a field the set does not declare")
		Expect(helmEntry).NotTo(ContainSubstring("f:data"), "Helm still owns a field the set declares")

		By("dropping a key from the set's declaration")
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
				return err
			}
			for i := range set.Spec.Resources {
				obj, err := set.Spec.Resources[i].Object()
				if err != nil {
					return err
				}
				unstructured.RemoveNestedField(obj.Object, "data", "drop")
				if set.Spec.Resources[i], err = applyv1alpha1.NewResource(obj.Object); err != nil {
					return err
				}
			}
			return env.Client.Update(ctx, set)
		})).To(Succeed())
		becomesReady(ctx, set)
		adoptedD := &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), adopted)).To(Succeed())
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(d), adoptedD)).To(Succeed())
		Expect(adopted.Data).To(Equal(map[string]string{"keep": "1"}), "a key the set no longer declares stayed")
		Expect(*adoptedD.Spec.Replicas).To(BeEquivalentTo(3), "the set took over the replicas kubectl scale wrote")
		Expect(adopted.UID).To(Equal(cm.UID))
		Expect(adoptedD.UID).To(Equal(d.UID))
	})
})

// becomesReady waits for the set to be Ready at its generation, reporting
// every Deployment in its namespace available as a controller would: envtest
// runs none.
func becomesReady(ctx context.Context, set *applyv1alpha1.ApplySet) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		list := &appsv1.DeploymentList{}
		g.Expect(env.Client.List(ctx, list, client.InNamespace(set.Namespace))).To(Succeed())
		for i := range list.Items {
			d := &list.Items[i]
			replicas := ptr.Deref(d.Spec.Replicas, 1)
			if d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == replicas {
				continue
			}
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas,
				ReadyReplicas: replicas, AvailableReplicas: replicas, Conditions: []appsv1.DeploymentCondition{
					{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"},
					{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"}}}
			g.Expect(client.IgnoreNotFound(env.Client.Status().Update(ctx, d))).To(Succeed())
		}
		g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
		g.Expect(ready.ObservedGeneration).To(Equal(set.Generation))
	}).WithTimeout(2 * time.Minute).Should(Succeed())
}

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
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// dependingConfigMap is an inline ConfigMap that depends on the objects named.
func dependingConfigMap(name, dependsOn string) applyv1alpha1.Resource {
	return object(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{
		"name": name, "annotations": map[string]any{apply.DependsOnAnnotation: dependsOn}}})
}

func resourceVersion(ctx context.Context, obj client.Object) int {
	GinkgoHelper()
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	rv, err := strconv.Atoi(obj.GetResourceVersion())
	Expect(err).NotTo(HaveOccurred())
	return rv
}

var _ = Describe("Order inside a set", func() {
	It("applies an object once what its depends-on annotation names works", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "ordered", dependingConfigMap("app", "apps/namespaces/"+ns+"/Deployment/web"), deployment(1))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())

		Eventually(readyCondition(ctx, set)).Should(SatisfyAll(HaveField("Reason", applyv1alpha1.ReasonProgressing),
			HaveField("Message", ContainSubstring("ConfigMap "+ns+"/app (InProgress: not applied yet: ConfigMap "+ns+
				"/app waits for Deployment.apps "+ns+"/web"))))
		Consistently(func() bool { return configMapExists(ctx, ns, "app") }).WithTimeout(2 * time.Second).Should(BeFalse())

		rollOut(ctx, ns)
		readyFor(ctx, set)
		web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
		app := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}}
		Expect(resourceVersion(ctx, app)).To(BeNumerically(">", resourceVersion(ctx, web)))
	})

	It("refuses a circle before it applies anything", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "circular", dependingConfigMap("a", "/namespaces/"+ns+"/ConfigMap/b"),
			dependingConfigMap("b", "/namespaces/"+ns+"/ConfigMap/a"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Reason", applyv1alpha1.ReasonInvalidInput), HaveField("Message", ContainSubstring("in a circle"))))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse())
	})

	It("waits for a dependency outside the set to exist, applying nothing", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "outside", inlineConfigMap("first", "1"), dependingConfigMap("second", "/namespaces/"+ns+"/Secret/made-elsewhere"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(readyCondition(ctx, set)).Should(HaveField("Message",
			ContainSubstring("Secret "+ns+"/made-elsewhere named in "+apply.DependsOnAnnotation+" exist neither in the set nor in the cluster")))
		Expect(configMapExists(ctx, ns, "first")).To(BeFalse())

		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "made-elsewhere"}})).To(Succeed())
		readyFor(ctx, set)
	})

	It("prunes a Namespace only once the workloads pruned before it are gone, across reconciles", func(ctx context.Context) {
		adminNS, admin := clusterAdmin(ctx)
		team := "pruned-" + adminNS
		stays := object(map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": team}})
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: team}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = adminNS, admin
		set.Spec.AdditionalNamespaces = []string{team}
		set.Spec.Wait = ptr.To(false)
		set.Spec.Resources = []applyv1alpha1.Resource{stays,
			object(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": team}}),
			namespacedConfigMap(team, "workload"),
		}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(readyCondition(ctx, set)).Should(HaveField("Status", metav1.ConditionTrue))
		workload := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "workload"}}
		hold(ctx, workload, true)

		updateSet(ctx, set, func(set *applyv1alpha1.ClusterApplySet) { set.Spec.Resources = []applyv1alpha1.Resource{stays} })
		Eventually(readyCondition(ctx, set)).Should(SatisfyAll(HaveField("Reason", applyv1alpha1.ReasonPruning),
			HaveField("Message", ContainSubstring("Namespace "+team+" waits for ConfigMap "+team+"/workload to be deleted"))))
		By("reconciling again while the workload is going: the record still names it, so the Namespace still waits")
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}}
		for range 2 {
			updateSet(ctx, set, func(set *applyv1alpha1.ClusterApplySet) {
				set.Annotations = map[string]string{"test.applyset.dev/poke": time.Now().String()}
			})
			Consistently(func() *metav1.Time {
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(namespace), namespace)).To(Succeed())
				return namespace.DeletionTimestamp
			}).WithTimeout(2*time.Second).Should(BeNil(), "a later reconcile pruned the Namespace under a workload still going")
		}
		Expect(readyCondition(ctx, set)()).To(HaveField("Message", ContainSubstring("ConfigMap "+team+"/workload")))

		hold(ctx, workload, false)
		Eventually(func() *metav1.Time {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(namespace), namespace)).To(Succeed())
			return namespace.DeletionTimestamp
		}).ShouldNot(BeNil())
	})

	It("deletes the workloads before their Namespace, and goes once they are gone", func(ctx context.Context) {
		adminNS, admin := clusterAdmin(ctx)
		team := "team-" + adminNS
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: team}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = adminNS, admin
		set.Spec.AdditionalNamespaces = []string{team}
		set.Spec.Wait = ptr.To(false)
		set.Spec.Resources = []applyv1alpha1.Resource{
			object(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": team}}),
			namespacedConfigMap(team, "workload"),
		}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(readyCondition(ctx, set)).Should(HaveField("Status", metav1.ConditionTrue))

		workload := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "workload"}}
		hold(ctx, workload, true)

		Expect(k8sClient.Delete(ctx, set)).To(Succeed())
		Eventually(readyCondition(ctx, set)).Should(SatisfyAll(HaveField("Reason", applyv1alpha1.ReasonDeleting),
			HaveField("Message", ContainSubstring("Namespace "+team+" waits for ConfigMap "+team+"/workload to be deleted"))))
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}}
		Consistently(func() *metav1.Time {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(namespace), namespace)).To(Succeed())
			return namespace.DeletionTimestamp
		}).WithTimeout(2*time.Second).Should(BeNil(), "the Namespace was deleted under a live workload")

		hold(ctx, workload, false)
		Eventually(func() *metav1.Time {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(namespace), namespace)).To(Succeed())
			return namespace.DeletionTimestamp
		}).ShouldNot(BeNil())
		// No namespace controller runs here, so the Namespace never goes, and
		// the set rightly waits for it.
		Consistently(exists(ctx, set)).WithTimeout(time.Second).Should(BeTrue())
	})
})

// hold adds to obj a finalizer, as a controller might, or takes it away.
func hold(ctx context.Context, obj client.Object, on bool) {
	GinkgoHelper()
	Expect(testenv.Hold(ctx, k8sClient, obj, on)).To(Succeed())
}

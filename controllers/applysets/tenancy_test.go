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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// accessDenied matches the Ready condition of a set whose identity lacks
// each of the permissions, given as patterns of the message.
func accessDenied(who string, permissions ...string) OmegaMatcher {
	matchers := []OmegaMatcher{HaveField("Status", metav1.ConditionFalse), HaveField("Reason", applyv1alpha1.ReasonAccessDenied),
		HaveField("Message", ContainSubstring(who+" may not"))}
	for _, p := range permissions {
		matchers = append(matchers, HaveField("Message", MatchRegexp(p)))
	}
	return SatisfyAll(matchers...)
}

// clusterRole is a ClusterRole a tenant would like to have.
func clusterRole() applyv1alpha1.Resource {
	return object(map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": map[string]any{"name": "tenant-escalation"}, "rules": []any{}})
}

var _ = Describe("A tenant's set, acting as its namespace's default ServiceAccount", func() {
	It("cannot create a cluster-scoped object, and then applies nothing at all", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "escalate", inlineConfigMap("a", "1"), clusterRole())
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(accessDenied("ServiceAccount "+ns+"/default",
			`create[^;]* clusterroles\.rbac\.authorization\.k8s\.io \(cluster-scoped\)`,
			`patch[^;]* clusterroles\.rbac\.authorization\.k8s\.io \(cluster-scoped\)`))
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "escalate")).Should(ContainElement("Warning/" + applyv1alpha1.ReasonAccessDenied))
		Consistently(func() bool { return configMapExists(ctx, ns, "a") }).WithTimeout(2*time.Second).Should(BeFalse(),
			"an object the set may write was applied although another was refused")
		Expect(exists(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "tenant-escalation"}})()).To(BeFalse())
	})

	It("cannot write into a namespace where its identity has no rights", func(ctx context.Context) {
		ns, other := newNamespace(ctx), bareNamespace(ctx)
		set := newSet(ns, "reach", inlineConfigMap("a", "1"), namespacedConfigMap(other, "b"))
		set.Spec.AdditionalNamespaces = []string{other}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(accessDenied("ServiceAccount "+ns+"/default",
			`(create|patch)[^;]* configmaps in namespace `+other))
		Consistently(func() bool { return configMapExists(ctx, ns, "a") }).WithTimeout(2 * time.Second).Should(BeFalse())
		Expect(configMapExists(ctx, other, "b")).To(BeFalse())
	})

	It("cannot read a Secret through its sources that its identity may not read", func(ctx context.Context) {
		ns := bareNamespace(ctx)
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}})).To(Succeed())
		serviceAccount(ctx, ns, "default", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmaps"})
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manifests"},
			StringData: map[string]string{"app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-secret}\n"}})).To(Succeed())
		set := newSet(ns, "peek")
		set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindSecret, Name: "manifests"}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(accessDenied("ServiceAccount "+ns+"/default",
			`get secrets in namespace `+ns))
		Expect(configMapExists(ctx, ns, "from-secret")).To(BeFalse())
	})

	It("waits for a ServiceAccount that does not exist, and acts as soon as it does", func(ctx context.Context) {
		ns := bareNamespace(ctx)
		set := newSet(ns, "waiting", inlineConfigMap("a", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(SatisfyAll(
			HaveField("Reason", applyv1alpha1.ReasonServiceAccountNotFound), HaveField("Message", ContainSubstring("ServiceAccount "+ns+"/default"))))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse(), "a set acted without an identity of its own")

		grantEverything(ctx, ns, ns)
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "a")).To(BeTrue())
	})
})

var _ = Describe("A ClusterApplySet", func() {
	It("acts as the ServiceAccount it names, in the namespace it names", func(ctx context.Context) {
		home, target := bareNamespace(ctx), bareNamespace(ctx)
		Expect(k8sClient.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "configmaps-" + home},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}})).To(Succeed())
		serviceAccount(ctx, home, "deployer", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "configmaps-" + home}, true)

		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "scoped-" + home}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = home, "deployer"
		set.Spec.AdditionalNamespaces = []string{target}
		set.Spec.Resources = []applyv1alpha1.Resource{namespacedConfigMap(target, "x")}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Status", metav1.ConditionTrue))
		Expect(configMapExists(ctx, target, "x")).To(BeTrue())

		By("declaring what the account may not create")
		updateSet(ctx, set, func(set *applyv1alpha1.ClusterApplySet) {
			set.Spec.Resources = append(set.Spec.Resources, clusterRole())
		})
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(accessDenied("ServiceAccount "+home+"/deployer",
			`create[^;]* clusterroles\.rbac\.authorization\.k8s\.io \(cluster-scoped\)`))
	})

	It("names a ServiceAccount: it has no namespace to take a default from", func(ctx context.Context) {
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "anonymous"}}
		set.Spec.Resources = []applyv1alpha1.Resource{clusterRole()}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", applyv1alpha1.ReasonNoServiceAccount),
			HaveField("Message", ContainSubstring("spec.serviceAccountNamespace"))))
		Expect(exists(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "tenant-escalation"}})()).To(BeFalse())
	})
})

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

package validation

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// aggregatedView is the built-in view role as the aggregation controller
// fills it in (the test API server runs no controller manager): the rules
// of every ClusterRole its selectors pick, the shipped viewer role among them.
func aggregatedView(ctx context.Context) []rbacv1.PolicyRule {
	GinkgoHelper()
	view := &rbacv1.ClusterRole{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "view"}, view)).To(Succeed())
	Expect(view.AggregationRule).NotTo(BeNil(), "the built-in view role aggregates no longer")
	var rules []rbacv1.PolicyRule
	for _, selector := range view.AggregationRule.ClusterRoleSelectors {
		picked := &rbacv1.ClusterRoleList{}
		Expect(k8sClient.List(ctx, picked, client.MatchingLabels(selector.MatchLabels))).To(Succeed())
		for _, role := range picked.Items {
			rules = append(rules, role.Rules...)
		}
	}
	return rules
}

var _ = Describe("Namespace viewers (the built-in view role)", Ordered, func() {
	const viewer = "namespace-viewer"

	BeforeAll(func(ctx context.Context) {
		raw, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac", "applyset_viewer_role.yaml"))
		Expect(err).NotTo(HaveOccurred())
		shipped := &rbacv1.ClusterRole{}
		Expect(yaml.Unmarshal(raw, shipped)).To(Succeed())
		Expect(k8sClient.Create(ctx, shipped)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, shipped)).To(Succeed()) })

		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{GenerateName: "view-as-aggregated-"}, Rules: aggregatedView(ctx)}
		Expect(k8sClient.Create(ctx, role)).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: home, GenerateName: "view-"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: viewer}}})).To(Succeed())
	})

	It("read the sets of their namespace, but no Secret's data through one", func(ctx context.Context) {
		as := asUser(viewer)
		Eventually(func() error {
			return as.List(ctx, &applyv1alpha1.ApplySetList{}, client.InNamespace(home))
		}).WithContext(ctx).Should(Succeed(), "the view role does not show sets: the viewer role is not aggregated into it")
		Expect(apierrors.IsForbidden(as.Get(ctx, client.ObjectKey{Namespace: home, Name: "any"}, &corev1.Secret{}))).To(BeTrue(),
			"the view role shows Secrets")

		By("refusing a set that writes a Secret inline, which every viewer would read")
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: home, Name: "inline-secret"}}
		secret, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": "db"}, "stringData": map[string]any{"password": "hunter2"}})
		Expect(err).NotTo(HaveOccurred())
		set.Spec.Resources = []applyv1alpha1.Resource{secret}
		err = k8sClient.Create(ctx, set)
		if err == nil {
			DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, set)).To(Succeed()) })
			read := &applyv1alpha1.ApplySet{}
			Expect(as.Get(ctx, client.ObjectKeyFromObject(set), read)).To(Succeed())
			out, err := json.Marshal(read)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(out)).NotTo(ContainSubstring("hunter2"), "a namespace viewer read a Secret's data through a set")
		}
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "a set holding a Secret inline was not refused: %v", err)

		By("reading a set that takes its Secret from a source, but not the Secret")
		set = &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: home, Name: "secret-source"}}
		set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindSecret, Name: "db-manifests"}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, set)).To(Succeed()) })
		Expect(as.Get(ctx, client.ObjectKeyFromObject(set), &applyv1alpha1.ApplySet{})).To(Succeed())
		Expect(apierrors.IsForbidden(as.Get(ctx, client.ObjectKey{Namespace: home, Name: "db-manifests"}, &corev1.Secret{}))).To(BeTrue())
	})
})

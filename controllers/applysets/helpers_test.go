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
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// newNamespace creates a namespace whose default ServiceAccount, which sets
// that name none act as, may do anything in the namespace and nothing
// outside it, as a tenant's deployer would.
func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := bareNamespace(ctx)
	grantEverything(ctx, ns, ns)
	return ns
}

// grantEverything lets the default ServiceAccount of saNamespace, created if
// needed, do anything in namespace ns.
func grantEverything(ctx context.Context, ns, saNamespace string) {
	const saName = "default"
	GinkgoHelper()
	Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "everything"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}}))).To(Succeed())
	Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: saNamespace, Name: saName}}))).To(Succeed())
	Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: saName + "-"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "everything"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: saName, Namespace: saNamespace}}})).To(Succeed())
}

// bareNamespace creates a namespace with nothing in it.
func bareNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sets-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// serviceAccount creates a ServiceAccount bound to role in its namespace,
// or, for a ClusterRole bound cluster-wide, everywhere.
func serviceAccount(ctx context.Context, ns, name string, role rbacv1.RoleRef, clusterWide ...bool) {
	GinkgoHelper()
	Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}))).To(Succeed())
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}}
	if len(clusterWide) > 0 && clusterWide[0] {
		Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{GenerateName: ns + "-" + name + "-"},
			RoleRef: role, Subjects: subjects})).To(Succeed())
		return
	}
	Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: name + "-"},
		RoleRef: role, Subjects: subjects})).To(Succeed())
}

// clusterAdmin creates a ServiceAccount that may do anything, for ClusterApplySets.
func clusterAdmin(ctx context.Context) (namespace, name string) {
	GinkgoHelper()
	namespace = bareNamespace(ctx)
	serviceAccount(ctx, namespace, "deployer", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"}, true)
	return namespace, "deployer"
}

func inlineConfigMap(name, value string) applyv1alpha1.Resource {
	r, err := applyv1alpha1.NewResource(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": map[string]any{"k": value},
	})
	Expect(err).NotTo(HaveOccurred())
	return r
}

func newSet(ns, name string, resources ...applyv1alpha1.Resource) *applyv1alpha1.ApplySet {
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	set.Spec.Resources = resources
	return set
}

// condition returns the set's condition of the given type, for Eventually.
func condition(ctx context.Context, set client.Object, kind string) func() *metav1.Condition {
	return func() *metav1.Condition {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		return apimeta.FindStatusCondition(set.(applyv1alpha1.Set).GetSetStatus().Conditions, kind)
	}
}

func readyFor(ctx context.Context, set *applyv1alpha1.ApplySet) {
	GinkgoHelper()
	Eventually(func() bool {
		c := condition(ctx, set, applyv1alpha1.ConditionReady)()
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == set.Generation
	}).Should(BeTrue(), "set %s never became Ready: %+v", set.Name, set.Status.Conditions)
}

func configMapExists(ctx context.Context, ns, name string) bool {
	err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &corev1.ConfigMap{})
	Expect(client.IgnoreNotFound(err)).To(Succeed())
	return err == nil
}

// updateSet changes a set as a person would with kubectl edit: on the latest
// version, again if the operator wrote to it meanwhile.
func updateSet[T client.Object](ctx context.Context, set T, change func(T)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
			return err
		}
		change(set)
		return k8sClient.Update(ctx, set)
	})).To(Succeed())
}

// memberNames are the kinds and names of a set's inventory.
func memberNames(members []applyv1alpha1.Member) []string {
	refs := make([]applyv1alpha1.ObjectReference, 0, len(members))
	for _, m := range members {
		refs = append(refs, m.ObjectReference)
	}
	return names(refs)
}

func names(refs []applyv1alpha1.ObjectReference) []string {
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.Kind+" "+r.Name)
	}
	return out
}

// object is an inline resource from a map, for objects of any kind.
func object(obj map[string]any) applyv1alpha1.Resource {
	GinkgoHelper()
	r, err := applyv1alpha1.NewResource(obj)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// namespacedConfigMap is an inline ConfigMap in namespace ns.
func namespacedConfigMap(ns, name string) applyv1alpha1.Resource {
	return object(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns}, "data": map[string]any{"k": "v"}})
}

// exists reports whether obj exists, for Eventually.
func exists(ctx context.Context, obj client.Object) func() bool {
	return func() bool {
		err := k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		Expect(client.IgnoreNotFound(err)).To(Succeed())
		return err == nil
	}
}

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

package corpus

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// corpusSet is one manifest set of testdata.
type corpusSet struct {
	name string
	// namespace is where kubectl's -n points and where the ApplySet lives:
	// objects that name no namespace land there.
	namespace string
	// additionalNamespaces are the other namespaces its objects name.
	additionalNamespaces []string
	// warnings are what the operator must say it left out, as kubectl does.
	warnings []string
}

var corpus = []corpusSet{
	// RBAC-heavy; ClusterRoles that name a namespace; CRDs; an APIService.
	{name: "kubernetes-addons", namespace: "kube-system", warnings: []string{"is cluster-scoped; its metadata.namespace kube-system is ignored"}},
	// Large: 2 MiB of YAML, one CRD of 1.5 MiB.
	{name: "argo-cd", namespace: "argocd"},
	// CRD-heavy: ten CRDs of up to 760 KiB.
	{name: "prometheus-operator", namespace: "default"},
	// Webhook-carrying. kubectl -n must match the namespaces objects name,
	// so the set lives in the namespace it declares.
	{name: "knative-serving", namespace: "knative-serving"},
}

var _ = Describe("Public manifests", Ordered, func() {
	sets := map[string]*applyv1alpha1.ApplySet{}

	It("install with kubectl apply --server-side", func(ctx context.Context) {
		for _, c := range corpus {
			ensureNamespace(ctx, byKubectl.Client, c.namespace)
			args := []string{"apply", "--server-side", "-n", c.namespace, "-f", "-"}
			start := time.Now()
			out, err := byKubectl.Kubectl(ctx, string(manifest(c.name)), args...)
			Expect(err).NotTo(HaveOccurred(), "kubectl apply of %s: %s", c.name, out)
			GinkgoWriter.Printf("kubectl installed %s in %s\n", c.name, time.Since(start).Round(time.Millisecond))
		}
	})

	It("install as ApplySets from compressed sources, and each turns Ready", func(ctx context.Context) {
		for _, c := range corpus {
			sets[c.name] = installSet(ctx, c)
		}
		for _, c := range corpus {
			set := sets[c.name]
			Eventually(func() *metav1.Condition {
				Expect(byOperator.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
				return apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
			}).Should(SatisfyAll(HaveField("Status", metav1.ConditionTrue), HaveField("ObservedGeneration", set.Generation)),
				"set %s never turned Ready", c.name)
			declared := declaredObjects(c)
			Expect(set.Status.MemberCount).To(HaveValue(BeEquivalentTo(len(declared))), "members of %s", c.name)
			GinkgoWriter.Printf("the operator installed %s: %d objects, %s\n", c.name, len(declared),
				apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady).Message)
			for _, w := range c.warnings {
				Expect(set.Status.Warnings).To(ContainElement(ContainSubstring(w)), "warnings of %s", c.name)
			}
		}
	})

	It("store the same objects either way", func(ctx context.Context) {
		for _, c := range corpus {
			var diffs []string
			for _, want := range declaredObjects(c) {
				byK, byO := fetch(ctx, byKubectl.Client, want), fetch(ctx, byOperator.Client, want)
				if d := cmp.Diff(normalized(byK), normalized(byO)); d != "" {
					diffs = append(diffs, fmt.Sprintf("%s %s/%s (-kubectl +operator):\n%s", want.GetKind(), want.GetNamespace(), want.GetName(), d))
				}
			}
			Expect(strings.Join(diffs, "\n")).To(BeEmpty(), "objects of %s differ", c.name)
		}
	})

	It("write nothing in the minute after Ready, even when reconciled again", func(ctx context.Context) {
		start := time.Now()
		before := reconciles()
		for _, c := range corpus {
			set := sets[c.name]
			Expect(byOperator.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			metav1.SetMetaDataAnnotation(&set.ObjectMeta, "corpus.test/reconcile", start.String())
			Expect(byOperator.Client.Update(ctx, set)).To(Succeed())
		}
		// A busy machine may take a while to reconcile four large sets; the wait
		// below lasts until a minute after the start in any case.
		Eventually(reconciles).WithTimeout(2 * time.Minute).Should(BeNumerically(">=", before+float64(len(corpus))))
		time.Sleep(time.Until(start.Add(time.Minute)))

		// The first reconcile after the one that created the members records a
		// plan of unchanged objects in each set's status; nothing else is written.
		var statuses, others []string
		for _, w := range operatorRequests.writesSince(start) {
			if setStatusPath.MatchString(w) {
				statuses = append(statuses, w)
				continue
			}
			others = append(others, w)
		}
		GinkgoWriter.Printf("writes in the minute after Ready: %d to set status, %d others\n", len(statuses), len(others))
		Expect(others).To(BeEmpty())
		Expect(len(statuses)).To(BeNumerically("<=", len(corpus)))
	})
})

var setStatusPath = regexp.MustCompile(`^PATCH /apis/apply\.applyset\.dev/v1alpha1/namespaces/[^/]+/applysets/[^/]+/status$`)

// installSet creates, on the operator's cluster, the set's namespace, a
// ServiceAccount that may install anything, a ConfigMap holding the gzip of
// the manifests, and the ApplySet reading it.
func installSet(ctx context.Context, c corpusSet) *applyv1alpha1.ApplySet {
	GinkgoHelper()
	k8s := byOperator.Client
	ensureNamespace(ctx, k8s, c.namespace)
	ensureInstaller(ctx, k8s, c.namespace)
	Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name + "-manifests"},
		BinaryData: map[string][]byte{c.name + ".yaml.gz": compressed(c.name)}})).To(Succeed())
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name}}
	set.Spec.ServiceAccountName = "installer"
	set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: c.name + "-manifests"}}
	set.Spec.AdditionalNamespaces = c.additionalNamespaces
	// Nothing runs Pods here: the set is Ready once every object is applied.
	set.Spec.Wait = ptr.To(false)
	Expect(k8s.Create(ctx, set)).To(Succeed())
	return set
}

// ensureInstaller creates the ServiceAccount installer of namespace, which
// may install anything.
func ensureInstaller(ctx context.Context, k8s client.Client, namespace string) {
	GinkgoHelper()
	Expect(k8s.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "installer"}})).To(Succeed())
	Expect(k8s.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: namespace + "-installer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: namespace, Name: "installer"}}})).To(Succeed())
}

func ensureNamespace(ctx context.Context, k8s client.Client, name string) {
	GinkgoHelper()
	Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
}

// fetch reads the object that want names.
func fetch(ctx context.Context, k8s client.Client, want *unstructured.Unstructured) *unstructured.Unstructured {
	GinkgoHelper()
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(want.GroupVersionKind())
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(want), got)).To(Succeed(), "reading %s %s", want.GetKind(), want.GetName())
	return got
}

// normalized is what must match between the clusters: the object without
// status, without what the API server sets on every write or allocates
// (cluster IPs, node ports), and without the operator's own labels and
// annotations.
func normalized(obj *unstructured.Unstructured) map[string]any {
	o := obj.DeepCopy()
	unstructured.RemoveNestedField(o.Object, "status")
	for _, f := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"} {
		unstructured.RemoveNestedField(o.Object, "metadata", f)
	}
	o.SetLabels(withoutOurs(o.GetLabels()))
	o.SetAnnotations(withoutOurs(o.GetAnnotations()))
	if o.GetKind() == "Service" && o.GetAPIVersion() == "v1" {
		unstructured.RemoveNestedField(o.Object, "spec", "clusterIP")
		unstructured.RemoveNestedField(o.Object, "spec", "clusterIPs")
		ports, _, _ := unstructured.NestedSlice(o.Object, "spec", "ports")
		for _, p := range ports {
			delete(p.(map[string]any), "nodePort")
		}
		Expect(unstructured.SetNestedSlice(o.Object, ports, "spec", "ports")).To(Succeed())
	}
	return o.Object
}

func withoutOurs(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !strings.HasPrefix(k, "applyset.kubernetes.io/") && !strings.HasPrefix(k, "apply.applyset.dev/") {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

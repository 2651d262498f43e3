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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

const certificateReady = "self.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')"

// newCertificate is a Certificate of testdata/dependencycrds, without status.
func newCertificate(ns, name string) *unstructured.Unstructured {
	cert := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Certificate",
		"metadata": map[string]any{"namespace": ns, "name": name}, "spec": map[string]any{"dnsNames": []any{"web.example.com"}}}}
	return cert
}

// waitingMessage is the set's Ready message while it waits for a dependency, for Eventually.
func waitingMessage(ctx context.Context, set *applyv1alpha1.ApplySet) func() string {
	return func() string {
		c := condition(ctx, set, applyv1alpha1.ConditionReady)()
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != applyv1alpha1.ReasonDependencyNotReady {
			return ""
		}
		return c.Message
	}
}

var _ = Describe("Dependencies on any object", func() {
	It("waits for a Certificate until its readyExpr holds, woken by the Certificate's changes", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "web", inlineConfigMap("web-config", "1"))
		set.Spec.DependsOn = []applyv1alpha1.Dependency{{APIVersion: "example.com/v1", Kind: "Certificate", Name: "web-tls",
			ReadyExpr: certificateReady}}
		// An interval of an hour: within the spec only a watch can wake the set.
		set.Spec.Interval = &metav1.Duration{Duration: time.Hour}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(waitingMessage(ctx, set)).Should(ContainSubstring("Certificate " + ns + "/web-tls does not exist"))
		Expect(set.Status.Conditions).NotTo(ContainElement(HaveField("Message", ContainSubstring("looks again by itself"))))

		By("creating the Certificate, not ready yet")
		cert := newCertificate(ns, "web-tls")
		Expect(k8sClient.Create(ctx, cert)).To(Succeed())
		Eventually(waitingMessage(ctx, set)).Should(ContainSubstring(
			"Certificate " + ns + "/web-tls is not ready: readyExpr \"" + certificateReady + "\""))
		Consistently(func() bool { return configMapExists(ctx, ns, "web-config") }).WithTimeout(2 * time.Second).Should(BeFalse())

		By("making it Ready, as its controller would")
		Expect(unstructured.SetNestedSlice(cert.Object, []any{map[string]any{"type": "Ready", "status": "True"}}, "status", "conditions")).To(Succeed())
		Expect(k8sClient.Status().Update(ctx, cert)).To(Succeed())
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "web-config")).To(BeTrue())
	})

	It("waits, naming the refusal, for an object its identity may not read", func(ctx context.Context) {
		ns := bareNamespace(ctx)
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}})).To(Succeed())
		serviceAccount(ctx, ns, "configmaps-only", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmaps"})
		Expect(k8sClient.Create(ctx, newCertificate(ns, "web-tls"))).To(Succeed())
		set := newSet(ns, "web", inlineConfigMap("web-config", "1"))
		set.Spec.ServiceAccountName = "configmaps-only"
		set.Spec.DependsOn = []applyv1alpha1.Dependency{{APIVersion: "example.com/v1", Kind: "Certificate", Name: "web-tls",
			ReadyExpr: certificateReady}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(waitingMessage(ctx, set)).Should(ContainSubstring("Certificate " + ns + "/web-tls cannot be read: forbidden for ServiceAccount " +
			ns + "/configmaps-only, which needs get on certificates.example.com"))
		// The operator's own rights would watch it; it watches only what the set's identity could read.
		Expect(waitingMessage(ctx, set)()).To(ContainSubstring("the operator does not watch Certificate " + ns +
			"/web-tls (its identity may not read it), so the set looks again by itself"))
		Expect(condition(ctx, set, applyv1alpha1.ConditionStalled)()).To(Or(BeNil(), HaveField("Status", metav1.ConditionFalse)))
		Expect(configMapExists(ctx, ns, "web-config")).To(BeFalse())
	})

	It("watches one object a watch, at most 16 for one set: it looks at the rest by itself", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "many", inlineConfigMap("many-config", "1"))
		for i := range 17 {
			set.Spec.DependsOn = append(set.Spec.DependsOn, applyv1alpha1.Dependency{APIVersion: "v1", Kind: "ConfigMap",
				Name: fmt.Sprintf("needed-%02d", i)})
		}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(waitingMessage(ctx, set)).Should(ContainSubstring("the operator does not watch ConfigMap " + ns +
			"/needed-16 (the set watches 16 objects already, the most one set may)"))
		Expect(waitingMessage(ctx, set)()).NotTo(ContainSubstring("needed-15 ("), "a set within its bound was not watched")

		By("creating the objects it waits for: the watches wake it")
		for i := range 17 {
			Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("needed-%02d", i)}})).To(Succeed())
		}
		readyFor(ctx, set)
	})

	It("judges an object without readyExpr by kstatus: a ConfigMap is ready once it exists", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "app", inlineConfigMap("app-config", "1"))
		set.Spec.DependsOn = []applyv1alpha1.Dependency{{APIVersion: "v1", Kind: "ConfigMap", Name: "settings"}, {Name: "platform"}}
		platform := newSet(ns, "platform", inlineConfigMap("platform-config", "1"))
		Expect(k8sClient.Create(ctx, platform)).To(Succeed())
		readyFor(ctx, platform)
		set.Spec.Interval = &metav1.Duration{Duration: time.Hour}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(waitingMessage(ctx, set)).Should(ContainSubstring("ConfigMap " + ns + "/settings does not exist"))

		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}})).To(Succeed())
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "app-config")).To(BeTrue())
	})

	It("refuses a readyExpr that does not compile at admission", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "badexpr", inlineConfigMap("a", "1"))
		set.Spec.DependsOn = []applyv1alpha1.Dependency{{APIVersion: "example.com/v1", Kind: "Certificate", Name: "web-tls", ReadyExpr: "self.status =="}}
		Eventually(func() error { return k8sClient.Create(ctx, set.DeepCopy(), client.DryRunAll) }).Should(And(
			MatchError(ContainSubstring("admission webhook")), MatchError(ContainSubstring("spec.dependsOn[0].readyExpr"))))
	})
})

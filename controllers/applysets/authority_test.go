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
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// withoutPolicy deletes the binding of the admission policy named name
// until restore, or the spec's end, puts it back. refused is a dry-run write
// the policy refuses: each waits until the API server has caught up, so
// that no other spec runs without the policy.
func withoutPolicy(ctx context.Context, name string, refused func(context.Context) error) (restore func(context.Context)) {
	GinkgoHelper()
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, binding)).To(Succeed())
	Expect(k8sClient.Delete(ctx, binding)).To(Succeed())
	Eventually(refused).WithContext(ctx).Should(Succeed(), "the API server still enforces %s", name)
	restore = func(ctx context.Context) {
		Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: binding.Name}, Spec: binding.Spec}))).To(Succeed())
		Eventually(refused).WithContext(ctx).Should(MatchError(ContainSubstring(name)), "the API server does not enforce %s again", name)
	}
	DeferCleanup(restore)
	return restore
}

// readyReasonOf is the reason of the set's Ready condition, "" without one.
func readyReasonOf(ctx context.Context, set *applyv1alpha1.ApplySet) func() string {
	return func() string {
		return ptr.Deref(condition(ctx, set, applyv1alpha1.ConditionReady)(), metav1.Condition{}).Reason
	}
}

var _ = Describe("The authority policies", Serial, func() {
	It("hold a set acting as a named ServiceAccount while no policy checks that its author may", func(ctx context.Context) {
		ns := newNamespace(ctx)
		serviceAccount(ctx, ns, "deployer", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "everything"})
		named := newSet(ns, "named", inlineConfigMap("a", "1"))
		named.Spec.ServiceAccountName = "deployer"
		author := userIn(ctx, ns, "author")
		restore := withoutPolicy(ctx, serviceAccountAuthority, func(ctx context.Context) error {
			return author.Create(ctx, named.DeepCopy(), client.DryRunAll)
		})
		Expect(k8sClient.Create(ctx, named)).To(Succeed())
		defaulted := newSet(ns, "defaulted", inlineConfigMap("b", "1"))
		Expect(k8sClient.Create(ctx, defaulted)).To(Succeed())

		Eventually(readyReasonOf(ctx, named)).Should(Equal(applyv1alpha1.ReasonAuthorityNotEnforced))
		Expect(condition(ctx, named, applyv1alpha1.ConditionReady)()).To(HaveField("Message",
			ContainSubstring("applyset-service-account-authority, so anyone who may edit the set could make it act as the ServiceAccount deployer")))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse(), "a set acted as a named ServiceAccount with no policy checking its author")
		readyFor(ctx, defaulted) // the default account needs no one's authority

		By("going on once the policy is back")
		restore(ctx)
		Eventually(readyReasonOf(ctx, named)).Should(Equal(applyv1alpha1.ReasonSucceeded),
			"the written binding did not wake the held set")
		Expect(configMapExists(ctx, ns, "a")).To(BeTrue())
	})

	It("hold a set reaching other namespaces while no policy checks that its author may", func(ctx context.Context) {
		ns, other := newNamespace(ctx), bareNamespace(ctx)
		grantEverything(ctx, other, ns)
		set := newSet(ns, "reaching", namespacedConfigMap(other, "b"))
		set.Spec.AdditionalNamespaces = []string{other}
		author := userIn(ctx, ns, "author")
		withoutPolicy(ctx, namespaceAuthority, func(ctx context.Context) error {
			return author.Create(ctx, set.DeepCopy(), client.DryRunAll)
		})
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(readyReasonOf(ctx, set)).Should(Equal(applyv1alpha1.ReasonAuthorityNotEnforced))
		Expect(condition(ctx, set, applyv1alpha1.ConditionReady)()).To(HaveField("Message", ContainSubstring("applyset-namespace-authority")))
		Expect(configMapExists(ctx, other, "b")).To(BeFalse())
	})
})

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

package apply

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// A write the API server refuses moments after the permission check allowed
// it: the RoleBinding is taken away between the check and the write, as an
// authorizer whose caches are still filling takes it away, and the refusal
// is the API server's own.
var _ = Describe("A write refused although the permission check allowed it", func() {
	var (
		ns, user string
		binding  *rbacv1.RoleBinding
		setID    string
		attempts atomic.Int32
	)

	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "forbidden-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns, user = namespace.Name, "system:serviceaccount:"+namespace.Name+":deployer"
		setID = applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: ns, Name: "set"}.ID()
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}})).To(Succeed())
		binding = &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmaps"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "deployer", Namespace: ns}}}
		attempts.Store(0)
	})

	// may waits until the API server's authorizer answers allowed for the
	// user's patch of ConfigMaps.
	may := func(ctx context.Context, allowed bool) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "patch", Resource: "configmaps", Namespace: ns}}}
			g.Expect(k8sClient.Create(ctx, review)).To(Succeed())
			g.Expect(review.Status.Allowed).To(Equal(allowed))
		}).Should(Succeed())
	}
	grant := func(ctx context.Context) {
		GinkgoHelper()
		Expect(k8sClient.Create(ctx, binding.DeepCopy())).To(Succeed())
		may(ctx, true)
	}
	revoke := func(ctx context.Context) {
		GinkgoHelper()
		Expect(k8sClient.Delete(ctx, binding.DeepCopy())).To(Succeed())
		may(ctx, false)
	}
	// engineAs acts as the user; before its apply number n, before(n) runs.
	engineAs := func(before func(ctx context.Context, n int32)) *Engine {
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		c, err := client.NewWithWatch(cfg, client.Options{Scheme: k8sClient.Scheme(), Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		c = interceptor.NewClient(c, interceptor.Funcs{
			Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
				before(ctx, attempts.Add(1))
				return c.Apply(ctx, obj, opts...)
			},
		})
		return &Engine{Client: c, FieldManager: fieldManager, ForbiddenRetry: 3 * time.Second}
	}
	configMap := func(name string) []Object {
		inputs, err := Decode("test", fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {k: v}\n", name))
		Expect(err).NotTo(HaveOccurred())
		objs, _, err := Check(inputs, Target{Scope: applyset.Scope{Namespace: ns}, DefaultNamespace: ns, Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		return objs
	}

	It("is retried quietly, and applied once the API server allows it again", func(ctx context.Context) {
		grant(ctx)
		engine := engineAs(func(ctx context.Context, n int32) {
			switch n {
			case 1:
				revoke(ctx)
			case 2:
				grant(ctx)
			}
		})

		cs, err := engine.Apply(ctx, configMap("late"), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.Count(Created)).To(Equal(1))
		Expect(attempts.Load()).To(BeEquivalentTo(2), "the refused write was not tried again")
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "late"}, &corev1.ConfigMap{})).To(Succeed())
	})

	It("surfaces once the bound is spent, saying the check allowed it", func(ctx context.Context) {
		grant(ctx)
		engine := engineAs(func(ctx context.Context, n int32) {
			if n == 1 {
				revoke(ctx)
			}
		})

		cs, err := engine.Apply(ctx, configMap("never"), ApplyOptions{SetID: setID})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("although a permission check allowed patch configmaps in namespace " + ns)))
		Expect(cs.Count(Failed)).To(Equal(1))
		Expect(attempts.Load()).To(BeNumerically(">", 1))
	})

	It("is not retried when the permission check itself refuses: a revocation surfaces at once", func(ctx context.Context) {
		engine := engineAs(func(context.Context, int32) {})

		_, err := engine.Apply(ctx, configMap("revoked"), ApplyOptions{SetID: setID})
		var denied *AccessError
		Expect(errors.As(err, &denied)).To(BeTrue(), "%v", err)
		Expect(attempts.Load()).To(BeZero(), "the engine wrote although the check refused")
	})

	It("is not retried when an admission policy refuses it", func(ctx context.Context) {
		grant(ctx)
		name := "no-refused-" + ns
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
					}}}},
				Validations: []admissionregistrationv1.Validation{{Expression: `object.metadata.name != "refused"`,
					Message: "refused by policy", Reason: ptr.To(metav1.StatusReasonForbidden)}},
			}}
		Expect(k8sClient.Create(ctx, policy)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, policy)).To(Succeed()) })
		policyBinding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name,
				MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
					MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}},
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
		Expect(k8sClient.Create(ctx, policyBinding)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, policyBinding)).To(Succeed()) })
		Eventually(func() error {
			return k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "refused"}}, client.DryRunAll)
		}).Should(MatchError(ContainSubstring("refused by policy")))
		engine := engineAs(func(context.Context, int32) {})

		_, err := engine.Apply(ctx, configMap("refused"), ApplyOptions{SetID: setID})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("refused by policy")))
		Expect(attempts.Load()).To(BeEquivalentTo(1), "an admission denial was retried")
	})
})

// A write of a custom resource that the API server's mutating admission
// policy plugin refuses with 503 while it has not read the kind's schema:
// the answer is made up in front of a real API server, which stores the
// write once the made-up refusals stop.
var _ = Describe("A write refused while the admission policies learn a new kind", func() {
	var (
		ns       string
		setID    string
		attempts atomic.Int32
	)

	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "lag-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns = namespace.Name
		setID = applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: ns, Name: "set"}.ID()
		attempts.Store(0)
	})

	// engineRefusing refuses the first refusals applies with the plugin's
	// 503, then lets them through; the retry is bounded by bound.
	withWatch := func() client.WithWatch {
		c, err := client.NewWithWatch(env.Config, client.Options{Scheme: k8sClient.Scheme(), Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		return c
	}
	engineRefusing := func(refusals int32, bound time.Duration) *Engine {
		c := interceptor.NewClient(withWatch(), interceptor.Funcs{
			Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
				if attempts.Add(1) <= refusals {
					return admissionLagError("/v1, Kind=ConfigMap")
				}
				return c.Apply(ctx, obj, opts...)
			},
		})
		return &Engine{Client: c, FieldManager: fieldManager, AdmissionLagRetry: bound}
	}
	configMap := func(name string) []Object {
		inputs, err := Decode("test", fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {k: v}\n", name))
		Expect(err).NotTo(HaveOccurred())
		objs, _, err := Check(inputs, Target{Scope: applyset.Scope{Namespace: ns}, DefaultNamespace: ns, Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		return objs
	}

	It("is retried, and applied once the plugin knows the kind", func(ctx context.Context) {
		engine := engineRefusing(3, 10*time.Second)

		cs, err := engine.Apply(ctx, configMap("late"), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.Count(Created)).To(Equal(1))
		Expect(attempts.Load()).To(BeEquivalentTo(4))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "late"}, &corev1.ConfigMap{})).To(Succeed())
	})

	It("surfaces once the bound is spent, saying why it was retried", func(ctx context.Context) {
		engine := engineRefusing(1000, 2*time.Second)

		cs, err := engine.Apply(ctx, configMap("never"), ApplyOptions{SetID: setID})
		Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("the API server's mutating admission policies do not know this kind yet")))
		Expect(cs.Count(Failed)).To(Equal(1))
		Expect(attempts.Load()).To(BeNumerically(">", 2))
		Expect(attempts.Load()).To(BeNumerically("<", 10), "the retries are spaced")
	})

	It("is not retried when the API server is unavailable for another reason", func(ctx context.Context) {
		c := interceptor.NewClient(withWatch(), interceptor.Funcs{
			Apply: func(context.Context, client.WithWatch, runtime.ApplyConfiguration, ...client.ApplyOption) error {
				attempts.Add(1)
				return apierrors.NewServiceUnavailable("etcd is down")
			},
		})
		engine := &Engine{Client: c, FieldManager: fieldManager}

		_, err := engine.Apply(ctx, configMap("down"), ApplyOptions{SetID: setID})
		Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue(), "%v", err)
		Expect(attempts.Load()).To(BeEquivalentTo(1))
	})
})

// admissionLagError is the mutating admission policy plugin's refusal of a
// kind whose schema it has not read, as the API server answers it.
func admissionLagError(kind string) error {
	return apierrors.NewServiceUnavailable("Resource kind " + kind +
		" not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.")
}

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

package featuregates

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// A cluster moved from the policy backend back to the webhook must not keep
// the policies: their gate states are frozen, and with them in place a gate
// turned on would still have its field dropped.
var _ = Describe("Moving from the policy backend to the webhook", func() {
	It("removes the policies the policy backend wrote", func(ctx context.Context) {
		crd := gadgetsCRD()
		createGated(ctx, crd, featuresv1alpha1.FeatureGate{Name: "A", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.a"}})
		policy := func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(crd.Name)}, &admissionv1.MutatingAdmissionPolicy{})
		}

		stop := runOperator(BackendPolicy)
		Eventually(policy).Should(Succeed(), "the policy backend wrote no policy")
		Expect(stop()).To(Succeed())

		stop = runOperator(BackendWebhook)
		DeferCleanup(stop)
		Eventually(func() bool { return apierrors.IsNotFound(policy()) }).Should(BeTrue(), "the policy was left in place")
	})
})

// Without config/components/policy-backend the operator may not write
// admission policies: asked for the policy backend all the same, it writes
// none, watches none, and says in Ready what it lacks.
var _ = Describe("The policy backend without its rights", func() {
	It("writes no policy and says which rights are missing and where they come from", func(ctx context.Context) {
		crd := gadgetsCRD()
		crd.Name, crd.Spec.Group = "gadgets.forbidden.example.com", "forbidden.example.com"
		cfg := createGated(ctx, crd, featuresv1alpha1.FeatureGate{Name: "A", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.a"}})
		stop := runOperatorWith(Options{WebhookConfiguration: DefaultConfigurationName, Backend: BackendPolicy,
			MissingPolicyRights: []string{"create mutatingadmissionpolicies", "patch mutatingadmissionpolicies"}})
		DeferCleanup(stop)

		Eventually(ready(ctx, cfg)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonPolicyForbidden),
			HaveField("Message", ContainSubstring("create mutatingadmissionpolicies, patch mutatingadmissionpolicies")),
			HaveField("Message", ContainSubstring("config/components/policy-backend"))))
		err := k8sClient.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(crd.Name)}, &admissionv1.MutatingAdmissionPolicy{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a policy was written: %v", err)
	})
})

// Back on the webhook without the policy backend's rights, the operator
// cannot delete what an earlier run with them left; it says so.
var _ = Describe("Policies left behind, without the rights to delete them", func() {
	It("are named, and left in place", func(ctx context.Context) {
		cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "gadgets.left.example.com"},
			Spec: featuresv1alpha1.CustomFeatureGatesSpec{FeatureGates: []featuresv1alpha1.FeatureGate{
				{Name: "A", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.a"}}}}}
		Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, cfg)).To(Succeed()) })
		set, err := featuregate.Compile(featuregate.FromAPI(cfg.Spec.FeatureGates))
		Expect(err).NotTo(HaveOccurred())
		policy := set.Policies(featuregate.Target{CRD: cfg.Name, Group: "left.example.com", Version: "v1", Plural: "gadgets"}).Mutating
		policy.OwnerReferences = []metav1.OwnerReference{{APIVersion: featuresv1alpha1.GroupVersion.String(), Kind: "CustomFeatureGates",
			Name: cfg.Name, UID: cfg.UID, Controller: ptr.To(true)}}
		Expect(k8sClient.Create(ctx, policy)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, policy))).To(Succeed()) })

		r := &Reconciler{Client: k8sClient, Reader: k8sClient, Options: Options{MissingPolicyRights: []string{"delete mutatingadmissionpolicies"}}}
		err = r.removeLeftoverPolicies(ctx, cfg.Name)
		Expect(err).To(MatchError(ContainSubstring("MutatingAdmissionPolicy " + policy.Name + ", which a run with the policy backend left")))
		Expect(err).To(MatchError(ContainSubstring("config/components/policy-backend")))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(policy), policy)).To(Succeed())
	})
})

// runOperator starts the feature gate controllers and webhook with backend,
// and returns what stops them.
func runOperator(backend Backend) func() error {
	GinkgoHelper()
	return runOperatorWith(Options{WebhookConfiguration: DefaultConfigurationName, Backend: backend})
}

// runOperatorWith is runOperator with the reconciler's options.
func runOperatorWith(opts Options) func() error {
	GinkgoHelper()
	stop, err := env.RunManager(func(mgr ctrl.Manager) error {
		if err := SetupWithManager(mgr, opts); err != nil {
			return err
		}
		return SetupWebhook(mgr, mgr.GetWebhookServer(), &Registrar{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(),
			Endpoint: webhooks.Endpoint{URL: env.WebhookURL(), CABundle: env.WebhookCA()}, Backend: opts.Backend})
	})
	Expect(err).NotTo(HaveOccurred())
	return stop
}

func gadgetsCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.switch.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "switch.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"a": {Type: "string"}}},
					}}}}},
		},
	}
}

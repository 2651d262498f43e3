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
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// The CRD of CustomFeatureGates refuses gates over the operator's own CRDs
// (test/validation checks that); an object stored before that rule is not
// acted on either.
var _ = Describe("CustomFeatureGates over the operator's own CRDs, stored before the CRD refused them", Serial, func() {
	const applySets = "applysets.apply.applyset.dev"

	DescribeTable("are reported Stalled and enforced by nothing", func(ctx context.Context, backend Backend) {
		restoreCRD := withoutOperatorCRDRule(ctx)
		cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: applySets},
			Spec: featuresv1alpha1.CustomFeatureGatesSpec{FeatureGates: []featuresv1alpha1.FeatureGate{{
				Name: "Suspend", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.suspend"},
			}}}}
		Eventually(func(ctx context.Context) error { return k8sClient.Create(ctx, cfg.DeepCopy()) }).WithContext(ctx).
			Should(Succeed(), "the API server still refuses the name")
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, cfg))).To(Succeed()) })
		restoreCRD(ctx)

		startOperator(backend)
		Eventually(ready(ctx, cfg)).Should(SatisfyAll(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonOperatorCRD),
			HaveField("Message", ContainSubstring("the operator's own CRDs (groups apply.applyset.dev and features.applyset.dev) may not be gated"))))
		stalled := apimeta.FindStatusCondition(cfg.Status.Conditions, featuresv1alpha1.ConditionStalled)
		Expect(stalled).To(HaveValue(SatisfyAll(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", ReasonOperatorCRD))))

		By("registering no webhook and writing no policy for it, so that no write drops the gated field")
		Consistently(func(ctx context.Context) []string {
			config := &admissionv1.MutatingWebhookConfiguration{}
			if err := k8sClient.Get(ctx, client.ObjectKey{Name: DefaultConfigurationName}, config); err != nil {
				return nil
			}
			var names []string
			for _, wh := range config.Webhooks {
				names = append(names, wh.Name)
			}
			return names
		}).WithContext(ctx).WithTimeout(2 * time.Second).ShouldNot(ContainElement(applySets))
		policy := &admissionv1.MutatingAdmissionPolicy{}
		Expect(client.IgnoreNotFound(k8sClient.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(applySets)}, policy))).To(Succeed())
		Expect(policy.Name).To(BeEmpty(), "the operator wrote a policy for its own CRD")

		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "own-crd-"}}
		Expect(k8sClient.Create(ctx, ns)).To(Succeed())
		set := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apply.applyset.dev/v1alpha1", "kind": "ApplySet",
			"metadata": map[string]any{"name": "kept", "namespace": ns.Name},
			"spec":     map[string]any{"suspend": true},
		}}
		Expect(k8sClient.Create(ctx, set, client.DryRunAll)).To(Succeed())
		Expect(set.Object["spec"]).To(HaveKeyWithValue("suspend", true), "a gate over the operator's own CRD dropped a field")
	},
		Entry("through the webhook", BackendWebhook),
		Entry("through admission policies", BackendPolicy),
	)
})

// operatorCRDRule is the CustomFeatureGates CRD's rule that refuses the
// operator's own CRDs.
func operatorCRDRule(rule apiextensionsv1.ValidationRule) bool {
	return strings.Contains(rule.Rule, ".apply.applyset.dev'")
}

// withoutOperatorCRDRule takes operatorCRDRule out of the CustomFeatureGates
// CRD, as before the rule was written, and returns what puts it back, which
// the end of the spec also calls.
func withoutOperatorCRDRule(ctx context.Context) func(context.Context) {
	GinkgoHelper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	key := client.ObjectKey{Name: "customfeaturegates.features.applyset.dev"}
	Expect(k8sClient.Get(ctx, key, crd)).To(Succeed())
	original := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations
	restore := func(ctx context.Context) {
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := k8sClient.Get(ctx, key, crd); err != nil {
				return err
			}
			crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations = original
			return k8sClient.Update(ctx, crd)
		})).To(Succeed())
	}
	DeferCleanup(restore)
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations = slices.DeleteFunc(slices.Clone(original), operatorCRDRule)
	Expect(k8sClient.Update(ctx, crd)).To(Succeed())
	return restore
}

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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

// Ready says the gates are in force once the API server runs the policy or
// calls the webhook entry; it must also wait until a write of the gated kind
// gets through admission. Here a mutating webhook that cannot be reached
// refuses every create of the kind, as the API server's mutating policies
// refuse them (503) for a while after the CRD is created, while the probes
// of the policy and of the webhook entry, which patch the CustomFeatureGates'
// status, pass.
var _ = Describe("Ready once a write of the gated kind is admitted", func() {
	for _, backend := range []Backend{BackendPolicy, BackendWebhook} {
		It(fmt.Sprintf("waits, through the %s backend, while writes of the kind are refused before validation", backend), func(ctx context.Context) {
			crd := admissionCRD("blocked" + string(backend))
			broken := &admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "unreachable-" + crd.Name},
				Webhooks: []admissionv1.MutatingWebhook{{
					Name:                    "unreachable.example.com",
					ClientConfig:            admissionv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:1/mutate")},
					Rules:                   []admissionv1.RuleWithOperations{createsOf(crd)},
					FailurePolicy:           ptr.To(admissionv1.Fail),
					SideEffects:             ptr.To(admissionv1.SideEffectClassNone),
					AdmissionReviewVersions: []string{"v1"},
				}}}
			Expect(k8sClient.Create(ctx, broken)).To(Succeed())
			DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, broken))).To(Succeed()) })
			cfg := createGated(ctx, crd, featuresv1alpha1.FeatureGate{Name: "Size", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.size"}})
			stop := runOperator(backend)
			DeferCleanup(stop)

			Eventually(ready(ctx, cfg)).Should(SatisfyAll(
				HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonAwaitingAdmission),
				HaveField("Message", ContainSubstring("enforced by the")),
				HaveField("Message", ContainSubstring("a dry-run create of "+crd.Name+" that sets the gated fields is not admitted yet")),
				HaveField("Message", ContainSubstring("failed calling webhook"))))
			Consistently(func() metav1.ConditionStatus {
				if c := ready(ctx, cfg)(); c != nil {
					return c.Status
				}
				return metav1.ConditionUnknown
			}).WithTimeout(3 * time.Second).ShouldNot(Equal(metav1.ConditionTrue))

			By("the writes admitted once the webhook is gone")
			Expect(k8sClient.Delete(ctx, broken)).To(Succeed())
			Eventually(ready(ctx, cfg)).WithTimeout(time.Minute).Should(SatisfyAll(
				HaveField("Status", metav1.ConditionTrue), HaveField("Reason", ReasonGatesEvaluated),
				HaveField("Message", HaveSuffix("writes of "+crd.Name+" are admitted"))))
			Expect(dryRunCreate(ctx, crd, 3)).To(Succeed())
		})
	}

	It("is not said before a write that sets a gated field gets past the policies, on a CRD just created", func(ctx context.Context) {
		stop := runOperator(BackendPolicy)
		DeferCleanup(stop)
		// The API server's mutating policies learn a new kind's schema from
		// its OpenAPI document, which they read every 5 seconds: until then
		// they refuse the kind's writes that a policy matches, with 503.
		crd := admissionCRD("fresh")
		cfg := createGated(ctx, crd, featuresv1alpha1.FeatureGate{Name: "Size", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.size"}})
		Eventually(ready(ctx, cfg)).WithTimeout(time.Minute).WithPolling(50 * time.Millisecond).
			Should(HaveField("Status", metav1.ConditionTrue))
		obj := probeObjectOf(crd, 3)
		Expect(k8sClient.Create(ctx, obj, client.DryRunAll)).To(Succeed(), "Ready, yet a write of the kind is refused")
		Expect(obj.Object["spec"]).NotTo(HaveKey("size"), "the disabled gate's field was kept")
	})

	It("says so when the probe identity may not create the kind where it probes", func(ctx context.Context) {
		crd := admissionCRD("unprobed")
		cfg := createGated(ctx, crd, featuresv1alpha1.FeatureGate{Name: "Size", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.size"}})
		stop := runOperatorWith(Options{WebhookConfiguration: DefaultConfigurationName, Backend: BackendPolicy, ProbeNamespace: "default"})
		DeferCleanup(stop)

		Eventually(ready(ctx, cfg)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonAdmissionProbeRefused),
			HaveField("Message", ContainSubstring(ProbeUser+" may not create them in namespace default"))))
	})

	It("acts as an identity that may make dry runs only, in the operator's namespace only", func(ctx context.Context) {
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: ProbeUser}
		probe, err := client.New(cfg, client.Options{Scheme: env.Scheme})
		Expect(err).NotTo(HaveOccurred())
		configMap := func(ns string) *corev1.ConfigMap {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "probe-"}}
		}

		Expect(probe.Create(ctx, configMap(DefaultProbeNamespace), client.DryRunAll)).To(Succeed())
		Eventually(func() error { return probe.Create(ctx, configMap(DefaultProbeNamespace)) }).
			Should(MatchError(ContainSubstring(ProbeUser + " may make dry runs only")))
		err = probe.Create(ctx, configMap("default"), client.DryRunAll)
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("cannot create resource")))
		list := &corev1.ConfigMapList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(DefaultProbeNamespace))).To(Succeed())
		for _, cm := range list.Items {
			Expect(cm.Name).NotTo(HavePrefix("probe-"), "the probe identity stored an object")
		}
	})
})

// admissionCRD is a namespaced CRD of its own group, whose spec has an
// integer size and a required name.
func admissionCRD(name string) *apiextensionsv1.CustomResourceDefinition {
	group := name + ".admission.example.com"
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "things." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Required: []string{"name"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer"}, "name": {Type: "string"}}},
					}}}}},
		},
	}
}

// createsOf matches the creates of crd's objects.
func createsOf(crd *apiextensionsv1.CustomResourceDefinition) admissionv1.RuleWithOperations {
	return admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
		Rule: admissionv1.Rule{APIGroups: []string{crd.Spec.Group}, APIVersions: []string{"v1"}, Resources: []string{crd.Spec.Names.Plural}}}
}

// probeObjectOf is an object of crd's kind in default with the given size.
func probeObjectOf(crd *apiextensionsv1.CustomResourceDefinition, size int64) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(crd.Spec.Group + "/v1")
	obj.SetKind(crd.Spec.Names.Kind)
	obj.SetNamespace("default")
	obj.SetGenerateName("thing-")
	obj.Object["spec"] = map[string]any{"name": "n", "size": size}
	return obj
}

// dryRunCreate is a dry-run create of an object of crd's kind.
func dryRunCreate(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, size int64) error {
	return k8sClient.Create(ctx, probeObjectOf(crd, size), client.DryRunAll)
}

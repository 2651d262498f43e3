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
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
)

// simpleCRD is a namespaced CRD with one integer field, .spec.size.
func simpleCRD(plural, kind string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".registrar.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "registrar.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true, Schema: sizeSchema()},
				{Name: "v1", Served: true, Storage: true, Schema: sizeSchema()},
			},
		},
	}
}

func sizeSchema() *apiextensionsv1.CustomResourceValidation {
	return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}},
		}},
	}}
}

var _ = Describe("Registrar", func() {
	It("leaves caBundle to the certificate rotator, and removes the entry of a deleted CustomFeatureGates", func(ctx context.Context) {
		const configuration = "registrar-test"
		r := &Registrar{Client: k8sClient, Reader: k8sClient, Configuration: configuration,
			Endpoint: webhooks.Endpoint{Service: &types.NamespacedName{Namespace: "default", Name: "nowhere"}}}
		var names []string
		for _, crd := range []*apiextensionsv1.CustomResourceDefinition{simpleCRD("gizmos", "Gizmo"), simpleCRD("sprockets", "Sprocket")} {
			createGated(ctx, crd, featuresv1alpha1.FeatureGate{Name: "Size", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.size"}})
			names = append(names, crd.Name)
		}
		// Shipped empty, as the install ships the operator's own.
		Expect(k8sClient.Create(ctx, &admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: configuration}})).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(k8sClient.Delete(ctx, &admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: configuration}})).To(Succeed())
		})
		reconcileAndGet := func() *admissionv1.MutatingWebhookConfiguration {
			GinkgoHelper()
			_, err := r.Reconcile(ctx, reconcile.Request{})
			Expect(err).NotTo(HaveOccurred())
			config := &admissionv1.MutatingWebhookConfiguration{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: configuration}, config)).To(Succeed())
			return config
		}
		entry := func(config *admissionv1.MutatingWebhookConfiguration, name string) *admissionv1.MutatingWebhook {
			for i := range config.Webhooks {
				if config.Webhooks[i].Name == name {
					return &config.Webhooks[i]
				}
			}
			return nil
		}

		config := reconcileAndGet()
		gizmos := entry(config, names[0])
		Expect(gizmos).NotTo(BeNil())
		Expect(gizmos.ClientConfig.Service).To(HaveValue(SatisfyAll(
			HaveField("Namespace", "default"), HaveField("Name", "nowhere"), HaveField("Path", HaveValue(Equal(WebhookPath))))))
		Expect(gizmos.ClientConfig.CABundle).To(BeEmpty())
		Expect(gizmos.Rules[0].APIVersions).To(Equal([]string{"v1"}), "the storage version, not the first one")
		Expect(entry(config, names[1])).NotTo(BeNil())
		ns := &corev1.Namespace{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "default"}, ns)).To(Succeed())
		Expect(config.OwnerReferences).To(ConsistOf(SatisfyAll(HaveField("Kind", "Namespace"), HaveField("UID", ns.UID))))

		By("a certificate rotator writing caBundle under its own field manager")
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			config := &admissionv1.MutatingWebhookConfiguration{}
			if err := k8sClient.Get(ctx, client.ObjectKey{Name: configuration}, config); err != nil {
				return err
			}
			for i := range config.Webhooks {
				config.Webhooks[i].ClientConfig.CABundle = []byte("rotated CA")
			}
			return k8sClient.Update(ctx, config, client.FieldOwner(identity.CertsFieldManager))
		})).To(Succeed())
		config = reconcileAndGet()
		Expect(entry(config, names[0]).ClientConfig.CABundle).To(Equal([]byte("rotated CA")), "apply must not take caBundle back")

		By("deleting one CustomFeatureGates")
		Expect(k8sClient.Delete(ctx, &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: names[1]}})).To(Succeed())
		config = reconcileAndGet()
		Expect(entry(config, names[1])).To(BeNil())
		Expect(entry(config, names[0]).ClientConfig.CABundle).To(Equal([]byte("rotated CA")))
		Expect(config.ManagedFields).To(ContainElements(
			HaveField("Manager", identity.WebhooksFieldManager), HaveField("Manager", identity.CertsFieldManager)))

		By("deleting the CRD of the other")
		Expect(k8sClient.Delete(ctx, simpleCRD("gizmos", "Gizmo"))).To(Succeed())
		Eventually(func() *admissionv1.MutatingWebhook { return entry(reconcileAndGet(), names[0]) }).Should(BeNil())
	})

	It("does not create a configuration the install should have shipped, and says so", func(ctx context.Context) {
		cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "gadgets.registrar.example.com"}}
		cfg.Spec.FeatureGates = []featuresv1alpha1.FeatureGate{{Name: "Size", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.size"}}}
		Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, cfg)).To(Succeed()) })
		recorder := events.NewFakeRecorder(100)
		r := &Registrar{Client: k8sClient, Reader: k8sClient, Recorder: recorder, Configuration: "registrar-not-shipped",
			Endpoint: webhooks.Endpoint{URL: "https://127.0.0.1:1"}}

		_, err := r.Reconcile(ctx, reconcile.Request{})
		Expect(webhooks.IsMissing(err)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("MutatingWebhookConfiguration registrar-not-shipped does not exist: it is part of the install")))
		Expect(recorder.Events).To(Receive(And(ContainSubstring("Warning WebhookRegistrationFailed"), ContainSubstring("apply the install again"))))
		err = k8sClient.Get(ctx, client.ObjectKey{Name: "registrar-not-shipped"}, &admissionv1.MutatingWebhookConfiguration{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the registrar created the configuration: %v", err)

		By("the reconciler's Ready saying the same")
		state, err := webhookBackend{&Reconciler{Client: k8sClient, Options: Options{WebhookConfiguration: "registrar-not-shipped"}}}.state(ctx, cfg.Name)
		Expect(err).NotTo(HaveOccurred())
		Expect(state.missing).To(BeTrue())
		_, reason, msg, _ := enforced(cfg, state)
		Expect(reason).To(Equal(ReasonWebhookConfigMissing))
		Expect(msg).To(ContainSubstring("MutatingWebhookConfiguration registrar-not-shipped does not exist"))
	})

	It("tells every CustomFeatureGates why the configuration could not be written", func(ctx context.Context) {
		cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "doodads.registrar.example.com"}}
		cfg.Spec.FeatureGates = []featuresv1alpha1.FeatureGate{{Name: "Size", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.size"}}}
		Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, cfg)).To(Succeed()) })
		recorder := events.NewFakeRecorder(100)
		r := &Registrar{Client: k8sClient, Reader: k8sClient, Recorder: recorder, Configuration: "registrar-failure-test",
			Endpoint: webhooks.Endpoint{Service: &types.NamespacedName{Namespace: "absent", Name: "webhook"}}}

		_, err := r.Reconcile(ctx, reconcile.Request{})
		Expect(err).To(MatchError(ContainSubstring("reading the webhook Service's Namespace absent")))
		Expect(recorder.Events).To(Receive(And(
			ContainSubstring("Warning WebhookRegistrationFailed"), ContainSubstring("Namespace absent"))))
	})
})

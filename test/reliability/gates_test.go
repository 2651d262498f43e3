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

package reliability

import (
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
)

// The operator goes down while a CRD's fields are gated. Through the webhook,
// writes to the gated kind fail closed (none is stored with a disabled field)
// and every other write goes on; through admission policies, the API server
// keeps enforcing the gates by itself. Either way, gating works again once
// the operator is back.
var _ = Describe("Feature gates while the operator is down", func() {
	for _, backend := range []featuregates.Backend{featuregates.BackendWebhook, featuregates.BackendPolicy} {
		label := string(backend)
		It("never stores a disabled field, through the "+label+" backend", func(ctx context.Context) {
			group := label + ".reliability.example.com"
			crd := widgetCRD(group)
			Expect(k8sClient.Create(ctx, crd)).To(Succeed())
			cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: crd.Name},
				Spec: featuresv1alpha1.CustomFeatureGatesSpec{FeatureGates: []featuresv1alpha1.FeatureGate{
					{Name: "NewField", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.newField"}}}}}
			Expect(k8sClient.Create(ctx, cfg)).To(Succeed())

			stop := runGateOperator(backend)
			DeferCleanup(func() { _ = stop() })
			expectGated(ctx, backend, group)

			By("stopping the operator")
			Expect(stop()).To(Succeed())
			stored, refused := 0, 0
			deadline := time.Now().Add(3 * time.Second)
			for i := 0; time.Now().Before(deadline); i++ {
				name := fmt.Sprintf("down-%d", i)
				if spec := createWidget(ctx, group, name); spec != nil {
					Expect(spec).NotTo(HaveKey("newField"), "a disabled field was stored while the operator was down")
					stored++
				} else {
					refused++
				}
				Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default",
					Name: label + "-" + name}})).To(Succeed(), "a write that no gate concerns failed")
				time.Sleep(100 * time.Millisecond)
			}
			AddReportEntry("feature gates with the operator down, "+label, fmt.Sprintf("%d gated writes stored without the field, %d refused", stored, refused))
			if backend == featuregates.BackendPolicy {
				Expect(refused).To(BeZero(), "the API server's policy depends on the operator")
			} else {
				Expect(stored).To(BeZero(), "the webhook let a write through while it was down")
			}

			By("starting the operator again")
			stop = runGateOperator(backend)
			expectGated(ctx, backend, group)
			Expect(createWidget(ctx, group, "after")).To(Equal(map[string]any{"kept": "yes"}))
		})
	}
})

// expectGated checks, once the gates are Ready, that a create would store
// the widget without its gated field. Under the policy backend Ready means
// the API server runs the policies, so the first write it accepts is gated;
// it may refuse writes (fail closed) while it learns a new CRD's schema. The
// webhook backend's Ready says only that its entry is written.
func expectGated(ctx context.Context, backend featuregates.Backend, group string) {
	GinkgoHelper()
	Eventually(func() bool {
		cfg := &featuresv1alpha1.CustomFeatureGates{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "widgets." + group}, cfg)).To(Succeed())
		c := apimeta.FindStatusCondition(cfg.Status.Conditions, featuresv1alpha1.ConditionReady)
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == cfg.Generation
	}).Should(BeTrue())
	want := map[string]any{"kept": "yes"}
	if backend == featuregates.BackendWebhook {
		Eventually(func() (map[string]any, error) { return probeWidget(ctx, group) }).Should(Equal(want))
		return
	}
	var spec map[string]any
	Eventually(func() (err error) { spec, err = probeWidget(ctx, group); return err }).Should(Succeed())
	Expect(spec).To(Equal(want), "a write accepted after Ready kept the gated field")
}

// probeWidget is createWidget as a dry run: what a create would store.
func probeWidget(ctx context.Context, group string) (map[string]any, error) {
	obj := widget(group, "probe")
	if err := k8sClient.Create(ctx, obj, client.DryRunAll); err != nil {
		return nil, err
	}
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	return spec, nil
}

func widget(group, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     map[string]any{"newField": "set", "kept": "yes"},
	}}
}

// createWidget creates a widget that sets the gated field and another, and
// returns its stored spec, or nil when the create was refused.
func createWidget(ctx context.Context, group, name string) map[string]any {
	obj := widget(group, name)
	if err := k8sClient.Create(ctx, obj); err != nil {
		GinkgoWriter.Printf("create %s: %v\n", name, err)
		return nil
	}
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	return spec
}

func widgetCRD(group string) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"newField": str, "kept": str}},
					}}}}},
		},
	}
}

// runGateOperator starts the operator's feature gate controllers and
// webhook, as the manager runs them, with backend.
func runGateOperator(backend featuregates.Backend) func() error {
	GinkgoHelper()
	stop, err := env.RunManager(func(mgr ctrl.Manager) error {
		if err := featuregates.SetupWithManager(mgr, featuregates.Options{WebhookConfiguration: featuregates.DefaultConfigurationName,
			Backend: backend}); err != nil {
			return err
		}
		return featuregates.SetupWebhook(mgr, mgr.GetWebhookServer(), &featuregates.Registrar{Client: mgr.GetClient(),
			Reader: mgr.GetAPIReader(), Endpoint: webhooks.Endpoint{URL: env.WebhookURL(), CABundle: env.WebhookCA()},
			Backend: backend})
	})
	Expect(err).NotTo(HaveOccurred())
	var once sync.Once
	var stopErr error
	return func() error { // once: a cleanup may stop it again
		once.Do(func() { stopErr = stop() })
		return stopErr
	}
}

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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// gizmos is a CRD served as v1beta1 and v1 and stored as v1, converted with
// strategy None: the design gates every version by the storage version's
// paths, after conversion.
func gizmos() *apiextensionsv1.CustomResourceDefinition {
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"replicas": {Type: "integer"}, "image": {Type: "string"},
			}},
		}}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos.versions.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "versions.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gizmos", Singular: "gizmo", Kind: "Gizmo", ListKind: "GizmoList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true, Storage: false, Schema: schema},
				{Name: "v1", Served: true, Storage: true, Schema: schema.DeepCopy()},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
		},
	}
}

func gizmo(version, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "versions.example.com/" + version, "kind": "Gizmo",
		"metadata": map[string]any{"name": name, "namespace": "default"}, "spec": spec,
	}}
}

// versionSpecs run inside gateSpecs, with the backend's operator running.
func versionSpecs(backend Backend) {
	Describe("a CRD served as v1beta1 and v1, stored as v1", func() {
		It("gates a request at either version by the storage version's paths", func(ctx context.Context) {
			crd := gizmos()
			Expect(k8sClient.Create(ctx, crd)).To(Succeed())
			DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, crd))).To(Succeed()) })
			cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: crd.Name},
				Spec: featuresv1alpha1.CustomFeatureGatesSpec{FeatureGates: []featuresv1alpha1.FeatureGate{
					{Name: "Replicas", PreRelease: featuresv1alpha1.Alpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.replicas"}}}}}
			Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
			DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, cfg))).To(Succeed()) })
			Eventually(ready(ctx, cfg)).Should(HaveField("Status", metav1.ConditionTrue))

			// Stored through v1 while the gate is on, to be kept once it is off.
			Eventually(func() error {
				return k8sClient.Create(ctx, gizmo("v1", "stored", map[string]any{"replicas": int64(1)}))
			}).Should(Succeed()) // the API server may refuse a new CRD's writes for a moment
			updateGizmoGates(ctx, cfg, false)

			By("registering at the storage version only")
			if backend == BackendPolicy {
				policy := &admissionv1.MutatingAdmissionPolicy{}
				Expect(k8sClient.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(crd.Name)}, policy)).To(Succeed())
				Expect(policy.Spec.MatchConstraints.ResourceRules).To(ContainElement(SatisfyAll(
					HaveField("APIGroups", Equal([]string{"versions.example.com"})), HaveField("APIVersions", Equal([]string{"v1"})))))
			} else {
				Eventually(func() []string {
					config := &admissionv1.MutatingWebhookConfiguration{}
					Expect(k8sClient.Get(ctx, client.ObjectKey{Name: DefaultConfigurationName}, config)).To(Succeed())
					for _, wh := range config.Webhooks {
						if wh.Name == crd.Name {
							return wh.Rules[0].APIVersions
						}
					}
					return nil
				}).Should(Equal([]string{"v1"}))
			}

			for _, version := range []string{"v1beta1", "v1"} {
				By("creating at " + version)
				Eventually(func(g Gomega) {
					probe := gizmo(version, "probe", map[string]any{"replicas": int64(3), "image": "i"})
					g.Expect(k8sClient.Create(ctx, probe, client.DryRunAll)).To(Succeed())
					g.Expect(probe.Object["spec"]).To(Equal(map[string]any{"image": "i"}))
				}).Should(Succeed())
				created := gizmo(version, "created-"+version, map[string]any{"replicas": int64(3), "image": "i"})
				Expect(k8sClient.Create(ctx, created)).To(Succeed())
				Expect(created.Object["spec"]).To(Equal(map[string]any{"image": "i"}))

				By("updating at " + version)
				stored := gizmo(version, "stored", nil)
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(stored), stored)).To(Succeed())
				Expect(unstructured.SetNestedField(stored.Object, int64(3), "spec", "replicas")).To(Succeed())
				Expect(k8sClient.Update(ctx, stored)).To(Succeed())
				Expect(stored.Object["spec"]).To(Equal(map[string]any{"replicas": int64(1)}))
			}
		})
	})
}

// updateGizmoGates turns the Replicas gate of cfg on or off and waits until
// it is Ready at the new generation.
func updateGizmoGates(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, on bool) {
	GinkgoHelper()
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg)).To(Succeed())
	cfg.Spec.FeatureGates[0].Enabled = ptr.To(on)
	Expect(k8sClient.Update(ctx, cfg)).To(Succeed())
	Eventually(ready(ctx, cfg)).Should(HaveField("Status", metav1.ConditionTrue))
}

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

package validation

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

// Rules tightened after objects were stored must leave those objects updatable:
// the API server ratchets CRD rules over unchanged values, and the namespace
// policy skips updates that keep resources and namespaces as they were.
var _ = Describe("Ratcheting", Serial, func() {
	It("keeps a CustomFeatureGates stored under an older, looser CRD updatable", func(ctx context.Context) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "customfeaturegates.features.applyset.dev"}, crd)).To(Succeed())
		strict := crd.DeepCopy()

		By("installing an older CRD without the CamelCase and Alpha-default rules")
		gateSchema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["featureGates"].Items.Schema
		name := gateSchema.Properties["name"]
		name.Pattern = ""
		gateSchema.Properties["name"] = name
		var kept apiextensionsv1.ValidationRules
		for _, rule := range gateSchema.XValidations {
			if rule.FieldPath != ".default" || rule.Reason == nil || *rule.Reason != apiextensionsv1.FieldValueForbidden {
				kept = append(kept, rule)
			}
		}
		Expect(kept).To(HaveLen(len(gateSchema.XValidations) - 2))
		gateSchema.XValidations = kept
		Expect(k8sClient.Update(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			current := &apiextensionsv1.CustomResourceDefinition{}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(strict), current)).To(Succeed())
			current.Spec = strict.Spec
			Expect(k8sClient.Update(ctx, current)).To(Succeed())
		})

		old := featureGates("ratchet.example.com",
			"{featureGates: [{name: legacyGate, preRelease: Alpha, default: true, fieldPaths: [.spec.legacy]}]}")
		Eventually(func(ctx context.Context) error {
			return k8sClient.Create(ctx, parse(old))
		}).WithContext(ctx).Should(Succeed())

		By("installing the current CRD again")
		current := &apiextensionsv1.CustomResourceDefinition{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(strict), current)).To(Succeed())
		current.Spec = strict.Spec
		Expect(k8sClient.Update(ctx, current)).To(Succeed())
		Eventually(func(ctx context.Context) error {
			return dryRunCreate(ctx, featureGates("fresh.example.com",
				"{featureGates: [{name: legacyGate, preRelease: Alpha, default: true, fieldPaths: [.spec.legacy]}]}"))
		}).WithContext(ctx).Should(HaveOccurred(), "the current rules never took effect")

		By("updating other fields of the stored object")
		key := client.ObjectKey{Name: "ratchet.example.com"}
		Expect(mergePatch(ctx, featureGatesKind, key, `{"spec":{"component":"widgets"}}`)).To(Succeed())
		Expect(mergePatch(ctx, featureGatesKind, key, `{"spec":{"featureGates":[
			{"name":"legacyGate","preRelease":"Alpha","default":true,"fieldPaths":[".spec.legacy"]},
			{"name":"NewGate","preRelease":"Beta","default":true,"fieldPaths":[".spec.new"]}]}}`)).To(Succeed())

		By("changing the invalid gate, which the current rules check again")
		err := mergePatch(ctx, featureGatesKind, key, `{"spec":{"featureGates":[
			{"name":"legacyGate","preRelease":"Alpha","default":true,"fieldPaths":[".spec.legacy",".spec.more"]}]}}`)
		expectOutcome(err, rejected("spec.featureGates[0].default", forbidden, "an Alpha gate may not default to true"))
	})

	It("keeps an ApplySet stored before the namespace policy updatable", func(ctx context.Context) {
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: scopePolicy}, binding)).To(Succeed())
		restore := binding.DeepCopy()
		restore.ResourceVersion = ""

		By("storing an out-of-scope ApplySet while the policy is unbound")
		Expect(k8sClient.Delete(ctx, binding)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, restore.DeepCopy()))).To(Succeed())
		})
		outOfScope := parse(applySet("{resources: [" + configMap("a", "namespace: "+other) + "]}"))
		outOfScope.SetName("ratchet")
		Eventually(func(ctx context.Context) error {
			return k8sClient.Create(ctx, outOfScope.DeepCopy())
		}).WithContext(ctx).Should(Succeed())

		By("binding the policy again")
		Expect(k8sClient.Create(ctx, restore.DeepCopy())).To(Succeed())
		Eventually(func(ctx context.Context) error {
			return dryRunCreate(ctx, applySet("{resources: ["+configMap("a", "namespace: "+other)+"]}"))
		}).WithContext(ctx).Should(HaveOccurred(), "the policy never took effect again")

		key := client.ObjectKey{Namespace: home, Name: "ratchet"}
		By("updating a field other than resources and additionalNamespaces, then only the labels")
		Expect(mergePatch(ctx, applySetKind, key, `{"spec":{"suspend":true}}`)).To(Succeed())
		Expect(mergePatch(ctx, applySetKind, key, `{"metadata":{"labels":{"team":"a"}}}`)).To(Succeed())

		By("changing the resources, which the policy checks again")
		err := mergePatch(ctx, applySetKind, key, `{"spec":{"resources":[
			{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"team-b"}}]}}`)
		expectOutcome(err, deniedByPolicy(scopePolicy, "ConfigMap team-b/b lie outside the ApplySet's namespaces"))
	})
})

var (
	featureGatesKind = featuresv1alpha1.GroupVersion.WithKind("CustomFeatureGates")
	applySetKind     = applyv1alpha1.GroupVersion.WithKind("ApplySet")
)

func mergePatch(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey, patch string) error {
	obj := parse("{}")
	obj.SetGroupVersionKind(gvk)
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	return k8sClient.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch)))
}

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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// cronTabs is the seed's CronTab CRD, with a defaulted field added.
func cronTabs() *apiextensionsv1.CustomResourceDefinition {
	spec := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"cronSpec": {Type: "string"},
		"image":    {Type: "string"},
		"replicas": {Type: "integer"},
		"timeZone": {Type: "string", Default: &apiextensionsv1.JSON{Raw: []byte(`"UTC"`)}},
		"foo": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"baz": {Type: "integer"}, "qux": {Type: "integer"},
		}},
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec},
				}},
			}},
		},
	}
}

func ready(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates) func() *metav1.Condition {
	return func() *metav1.Condition {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg)).To(Succeed())
		c := apimeta.FindStatusCondition(cfg.Status.Conditions, ConditionReady)
		if c == nil || c.ObservedGeneration != cfg.Generation {
			return nil
		}
		return c
	}
}

var _ = Describe("CustomFeatureGates status", Ordered, func() {
	cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"}}

	It("waits for a CRD that does not exist yet", func(ctx context.Context) {
		cfg.Spec.FeatureGates = []featuresv1alpha1.FeatureGate{
			{Name: "ReplicasFeatureGate", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.replicas"}},
			{Name: "Foo", PreRelease: featuresv1alpha1.Beta, Default: ptr.To(true), Enabled: ptr.To(false), FieldPaths: []string{".spec.foo"}},
			{Name: "Qux", PreRelease: featuresv1alpha1.Stable, FieldPaths: []string{".spec.foo.qux"}},
		}
		Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
		Eventually(ready(ctx, cfg)).Should(SatisfyAll(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonCRDNotFound)))
		Expect(cfg.Status.FeatureGates).To(ConsistOf(
			SatisfyAll(HaveField("Name", "ReplicasFeatureGate"), HaveField("Enabled", HaveValue(BeFalse())), HaveField("Reason", featuregate.ReasonDefaultOff)),
			SatisfyAll(HaveField("Name", "Foo"), HaveField("Enabled", HaveValue(BeFalse())), HaveField("Reason", featuregate.ReasonExplicitlyDisabled)),
			SatisfyAll(HaveField("Name", "Qux"), HaveField("Enabled", HaveValue(BeTrue())), HaveField("Reason", featuregate.ReasonStableAlwaysOn)),
		))
	})

	It("becomes Ready when the CRD arrives", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, cronTabs())).To(Succeed())
		Eventually(ready(ctx, cfg)).Should(SatisfyAll(HaveField("Status", metav1.ConditionTrue),
			HaveField("Message", "1 of 3 gates enabled over fields of crontabs.stable.example.com")))
		Expect(cfg.Status.UnknownFieldPaths).To(BeEmpty())
	})

	It("reports paths the schema does not have, and paths with a default", func(ctx context.Context) {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg)).To(Succeed())
		cfg.Spec.FeatureGates = append(cfg.Spec.FeatureGates,
			featuresv1alpha1.FeatureGate{Name: "Typo", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.replcas"}},
			featuresv1alpha1.FeatureGate{Name: "Zone", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.timeZone"}})
		Expect(k8sClient.Update(ctx, cfg)).To(Succeed())
		Eventually(ready(ctx, cfg)).Should(SatisfyAll(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonUnknownPaths)))
		Expect(cfg.Status.UnknownFieldPaths).To(Equal([]string{".spec.replcas"}))
		Expect(cfg.Status.DefaultedFieldPaths).To(Equal([]string{".spec.timeZone"}))
		Expect(apimeta.IsStatusConditionTrue(cfg.Status.Conditions, ConditionStalled)).To(BeTrue())
	})
})

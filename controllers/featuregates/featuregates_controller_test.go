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
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

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

// warningsCollector records the admission warnings a client receives.
type warningsCollector struct {
	mu       sync.Mutex
	messages []string
}

func (w *warningsCollector) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.messages = append(w.messages, text)
}

func (w *warningsCollector) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.messages)
}

func cronTab(name, spec string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal([]byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: "+name+
		", namespace: default}\nspec: "+spec), &obj.Object)).To(Succeed())
	return obj
}

func storedSpec(ctx context.Context, name string) map[string]any {
	obj := cronTab(name, "{}")
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	return spec
}

func setGate(ctx context.Context, name string, enabled bool) {
	GinkgoHelper()
	updateGates(ctx, func(cfg *featuresv1alpha1.CustomFeatureGates) {
		for i := range cfg.Spec.FeatureGates {
			if cfg.Spec.FeatureGates[i].Name == name {
				cfg.Spec.FeatureGates[i].Enabled = ptr.To(enabled)
			}
		}
	})
}

// updateGates changes the CronTab gates on their latest version, again if the
// operator wrote their status meanwhile.
func updateGates(ctx context.Context, change func(*featuresv1alpha1.CustomFeatureGates)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cfg := &featuresv1alpha1.CustomFeatureGates{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: "crontabs.stable.example.com"}, cfg); err != nil {
			return err
		}
		change(cfg)
		return k8sClient.Update(ctx, cfg)
	})).To(Succeed())
}

// One ordered container: the status specs need the CRD to be missing at
// first, and the webhook specs need it and the gates in place.
var _ = Describe("CustomFeatureGates", Ordered, func() {
	Describe("status", func() {
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
			updateGates(ctx, func(cfg *featuresv1alpha1.CustomFeatureGates) {
				cfg.Spec.FeatureGates = append(cfg.Spec.FeatureGates,
					featuresv1alpha1.FeatureGate{Name: "Typo", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.replcas"}},
					featuresv1alpha1.FeatureGate{Name: "Zone", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.timeZone"}})
			})
			Eventually(ready(ctx, cfg)).Should(SatisfyAll(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonUnknownPaths)))
			Expect(cfg.Status.UnknownFieldPaths).To(Equal([]string{".spec.replcas"}))
			Expect(cfg.Status.DefaultedFieldPaths).To(Equal([]string{".spec.timeZone"}))
			Expect(apimeta.IsStatusConditionTrue(cfg.Status.Conditions, ConditionStalled)).To(BeTrue())
		})
	})

	Describe("the field-dropping webhook", func() {
		BeforeAll(func(ctx context.Context) {
			crd := cronTabs()
			if err := k8sClient.Create(ctx, crd); client.IgnoreAlreadyExists(err) != nil {
				Expect(err).NotTo(HaveOccurred())
			}
			cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"}}
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg); err == nil {
				Expect(k8sClient.Delete(ctx, cfg)).To(Succeed())
				Eventually(func() bool { return k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg) != nil }).Should(BeTrue())
			}
			cfg = &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"}}
			cfg.Spec.FeatureGates = []featuresv1alpha1.FeatureGate{
				{Name: "ReplicasFeatureGate", PreRelease: featuresv1alpha1.Alpha, Enabled: ptr.To(false), FieldPaths: []string{".spec.replicas"}},
				{Name: "FooFeatureGate", PreRelease: featuresv1alpha1.Alpha, Enabled: ptr.To(false), FieldPaths: []string{".spec.foo"}},
				{Name: "QuxFeatureGate", PreRelease: featuresv1alpha1.Alpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.foo.qux"}},
			}
			Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
			// The webhook reads gates from the manager's cache; wait until it acts on them.
			Eventually(func() map[string]any {
				probe := cronTab("probe", "{replicas: 1}")
				Expect(k8sClient.Create(ctx, probe, client.DryRunAll)).To(Succeed())
				spec, _, _ := unstructured.NestedMap(probe.Object, "spec")
				return spec
			}).ShouldNot(HaveKey("replicas"))
		})

		It("drops a disabled gate's field on create, and a dry-run create shows the drop and stores nothing", func(ctx context.Context) {
			preview := cronTab("row1", "{cronSpec: '* * * * */5', replicas: 3}")
			Expect(k8sClient.Create(ctx, preview, client.DryRunAll)).To(Succeed())
			Expect(preview.Object["spec"]).To(Equal(map[string]any{"cronSpec": "* * * * */5", "timeZone": "UTC"}))
			Expect(apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(preview), cronTab("row1", "{}")))).To(BeTrue())

			Expect(k8sClient.Create(ctx, cronTab("row1", "{cronSpec: '* * * * */5', replicas: 3}"))).To(Succeed())
			Expect(storedSpec(ctx, "row1")).NotTo(HaveKey("replicas"))
		})

		It("keeps the stored value on update while the gate is off, and warns (4-row table, row 3)", func(ctx context.Context) {
			setGate(ctx, "ReplicasFeatureGate", true)
			Eventually(func() error { return k8sClient.Create(ctx, cronTab("row3", "{replicas: 3}")) }).Should(Succeed())
			Eventually(func() map[string]any { return storedSpec(ctx, "row3") }).Should(HaveKeyWithValue("replicas", BeNumerically("==", 3)))
			setGate(ctx, "ReplicasFeatureGate", false)

			warnings := &warningsCollector{}
			cfg := rest.CopyConfig(env.Config)
			cfg.WarningHandlerWithContext = warnings
			warned, err := client.New(cfg, client.Options{Scheme: env.Scheme})
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() []string {
				obj := cronTab("row3", "{}")
				Expect(warned.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
				Expect(unstructured.SetNestedField(obj.Object, int64(5), "spec", "replicas")).To(Succeed())
				Expect(warned.Update(ctx, obj)).To(Succeed())
				return warnings.all()
			}).Should(ContainElement(".spec.replicas not changed: feature gate ReplicasFeatureGate is disabled"))
			Expect(storedSpec(ctx, "row3")).To(HaveKeyWithValue("replicas", BeNumerically("==", 3)))
		})

		It("drops a child's field with its disabled parent gate (8-row table, row 2)", func(ctx context.Context) {
			Expect(k8sClient.Create(ctx, cronTab("row2", "{cronSpec: x, foo: {baz: 2, qux: 3}}"))).To(Succeed())
			Expect(storedSpec(ctx, "row2")).NotTo(HaveKey("foo"))
		})
	})
})

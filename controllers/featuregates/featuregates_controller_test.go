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
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admissionregistration/v1"
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
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// cronTabs is the seed's CronTab CRD (with the nested foo of the 8-row
// table), plus a defaulted field and a status subresource.
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
	status := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"nodes": {Type: "integer"}, "phase": {Type: "string"},
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec, "status": status},
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
			}},
		},
	}
}

func ready(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates) func() *metav1.Condition {
	return func() *metav1.Condition {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg)).To(Succeed())
		c := apimeta.FindStatusCondition(cfg.Status.Conditions, featuresv1alpha1.ConditionReady)
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

const cronTabsName = "crontabs.stable.example.com"

// gates are the CronTab gates the webhook specs flip.
func gates() []featuresv1alpha1.FeatureGate {
	off := func(name, path string) featuresv1alpha1.FeatureGate {
		return featuresv1alpha1.FeatureGate{Name: name, PreRelease: featuresv1alpha1.Alpha, Enabled: ptr.To(false), FieldPaths: []string{path}}
	}
	return []featuresv1alpha1.FeatureGate{
		off("ReplicasFeatureGate", ".spec.replicas"),
		off("FooFeatureGate", ".spec.foo"),
		off("QuxFeatureGate", ".spec.foo.qux"),
		off("NodesFeatureGate", ".status.nodes"),
		{Name: "LegacyImage", PreRelease: featuresv1alpha1.Deprecated, Default: ptr.To(true),
			DeprecationWarning: "spec.image is deprecated; use a pod template", FieldPaths: []string{".spec.image"}},
	}
}

// setGates enables or disables the named CronTab gates and waits until the
// operator has seen the change: the status reconciler writes
// observedGeneration only after its cache, which the webhook reads too, holds
// that generation.
func setGates(ctx context.Context, enabled map[string]bool) {
	GinkgoHelper()
	updateGates(ctx, func(cfg *featuresv1alpha1.CustomFeatureGates) {
		for i, g := range cfg.Spec.FeatureGates {
			if on, ok := enabled[g.Name]; ok {
				cfg.Spec.FeatureGates[i].Enabled = ptr.To(on)
			}
		}
	})
	awaitObserved(ctx)
}

func awaitObserved(ctx context.Context) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		cfg := &featuresv1alpha1.CustomFeatureGates{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: cronTabsName}, cfg)).To(Succeed())
		g.Expect(cfg.Status.ObservedGeneration).To(Equal(cfg.Generation))
	}).Should(Succeed())
}

// updateGates changes the CronTab gates on their latest version, again if the
// operator wrote their status meanwhile.
func updateGates(ctx context.Context, change func(*featuresv1alpha1.CustomFeatureGates)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cfg := &featuresv1alpha1.CustomFeatureGates{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: cronTabsName}, cfg); err != nil {
			return err
		}
		change(cfg)
		return k8sClient.Update(ctx, cfg)
	})).To(Succeed())
}

// warnedClient is a client whose admission warnings land in the collector.
func warnedClient() (client.Client, *warningsCollector) {
	GinkgoHelper()
	warnings := &warningsCollector{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandlerWithContext = warnings
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return c, warnings
}

// updateSpec writes spec fields over the stored object, as kubectl edit would.
func updateSpec(ctx context.Context, c client.Client, name string, fields map[string]any) {
	GinkgoHelper()
	obj := cronTab(name, "{}")
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	for k, v := range fields {
		Expect(unstructured.SetNestedField(obj.Object, v, "spec", k)).To(Succeed())
	}
	Expect(c.Update(ctx, obj)).To(Succeed())
}

// cronTabsEntry is the CronTab entry of the operator's webhook configuration.
func cronTabsEntry(ctx context.Context) func() *admissionv1.MutatingWebhook {
	return func() *admissionv1.MutatingWebhook {
		config := &admissionv1.MutatingWebhookConfiguration{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: DefaultConfigurationName}, config); err != nil {
			return nil
		}
		for i := range config.Webhooks {
			if config.Webhooks[i].Name == cronTabsName {
				return &config.Webhooks[i]
			}
		}
		return nil
	}
}

// dryRunSpec is what a dry-run create of spec would store.
func dryRunSpec(ctx context.Context, spec string) map[string]any {
	GinkgoHelper()
	probe := cronTab("probe", spec)
	Expect(k8sClient.Create(ctx, probe, client.DryRunAll)).To(Succeed())
	out, _, _ := unstructured.NestedMap(probe.Object, "spec")
	return out
}

// One ordered container: the status specs need the CRD to be missing at
// first, and the webhook specs need it and the gates in place.
var _ = Describe("CustomFeatureGates", Ordered, func() {
	Describe("created before its CRD", func() {
		cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: cronTabsName}}

		It("waits for the CRD, and registers no webhook for it yet", func(ctx context.Context) {
			cfg.Spec.FeatureGates = []featuresv1alpha1.FeatureGate{
				{Name: "ReplicasFeatureGate", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.replicas"}},
				{Name: "Foo", PreRelease: featuresv1alpha1.Beta, Default: ptr.To(true), Enabled: ptr.To(false), FieldPaths: []string{".spec.foo"}},
				{Name: "Qux", PreRelease: featuresv1alpha1.Stable, FieldPaths: []string{".spec.foo.qux"}},
			}
			Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
			Eventually(ready(ctx, cfg)).Should(SatisfyAll(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonCRDNotFound)))
			Expect(apimeta.IsStatusConditionTrue(cfg.Status.Conditions, featuresv1alpha1.ConditionReconciling)).To(BeTrue())
			Expect(cfg.Status.FeatureGates).To(ConsistOf(
				SatisfyAll(HaveField("Name", "ReplicasFeatureGate"), HaveField("Enabled", HaveValue(BeFalse())), HaveField("Reason", featuregate.ReasonDefaultOff)),
				SatisfyAll(HaveField("Name", "Foo"), HaveField("Enabled", HaveValue(BeFalse())), HaveField("Reason", featuregate.ReasonExplicitlyDisabled)),
				SatisfyAll(HaveField("Name", "Qux"), HaveField("Enabled", HaveValue(BeTrue())), HaveField("Reason", featuregate.ReasonStableAlwaysOn)),
			))
			Consistently(cronTabsEntry(ctx)).WithTimeout(time.Second).Should(BeNil())
		})

		It("becomes Ready, and starts dropping, when the CRD arrives", func(ctx context.Context) {
			Expect(k8sClient.Create(ctx, cronTabs())).To(Succeed())
			Eventually(ready(ctx, cfg)).Should(SatisfyAll(HaveField("Status", metav1.ConditionTrue),
				HaveField("Message", "1 of 3 gates enabled over fields of crontabs.stable.example.com")))
			Expect(cfg.Status.UnknownFieldPaths).To(BeEmpty())
			Eventually(func() map[string]any { return dryRunSpec(ctx, "{replicas: 1, cronSpec: x}") }).
				Should(Equal(map[string]any{"cronSpec": "x", "timeZone": "UTC"}))
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
			Expect(apimeta.IsStatusConditionTrue(cfg.Status.Conditions, featuresv1alpha1.ConditionStalled)).To(BeTrue())
		})
	})

	Describe("the webhook registration", func() {
		It("writes one entry for the CRD: its storage version, resources and status, under its own field manager", func(ctx context.Context) {
			Eventually(cronTabsEntry(ctx)).ShouldNot(BeNil())
			entry := cronTabsEntry(ctx)()
			Expect(entry.Rules).To(ConsistOf(SatisfyAll(
				HaveField("Operations", ConsistOf(admissionv1.Create, admissionv1.Update)),
				HaveField("Rule.APIGroups", Equal([]string{"stable.example.com"})),
				HaveField("Rule.APIVersions", Equal([]string{"v1"})),
				HaveField("Rule.Resources", Equal([]string{"crontabs", "crontabs/status"})),
			)))
			Expect(entry.MatchPolicy).To(HaveValue(Equal(admissionv1.Equivalent)))
			Expect(entry.FailurePolicy).To(HaveValue(Equal(admissionv1.Fail)))
			Expect(entry.SideEffects).To(HaveValue(Equal(admissionv1.SideEffectClassNone)))
			Expect(entry.TimeoutSeconds).To(HaveValue(BeNumerically("<=", 5)))
			Expect(entry.ClientConfig.URL).To(HaveValue(Equal(env.WebhookURL() + WebhookPath)))

			config := &admissionv1.MutatingWebhookConfiguration{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: DefaultConfigurationName}, config)).To(Succeed())
			Expect(config.ManagedFields).To(ContainElement(SatisfyAll(
				HaveField("Manager", identity.WebhooksFieldManager), HaveField("Operation", metav1.ManagedFieldsOperationApply))))
		})
	})

	Describe("the field-dropping webhook", func() {
		BeforeAll(func(ctx context.Context) {
			updateGates(ctx, func(cfg *featuresv1alpha1.CustomFeatureGates) { cfg.Spec.FeatureGates = gates() })
			awaitObserved(ctx)
		})

		It("drops a disabled gate's field on create; a dry-run create shows the drop and stores nothing", func(ctx context.Context) {
			before := testutil.ToFloat64(droppedFields.WithLabelValues(cronTabsName, "ReplicasFeatureGate", "dropped"))
			preview := cronTab("dry", "{cronSpec: '* * * * */5', replicas: 3}")
			Expect(k8sClient.Create(ctx, preview, client.DryRunAll)).To(Succeed())
			Expect(preview.Object["spec"]).To(Equal(map[string]any{"cronSpec": "* * * * */5", "timeZone": "UTC"}))
			Expect(apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(preview), cronTab("dry", "{}")))).To(BeTrue())
			Expect(testutil.ToFloat64(droppedFields.WithLabelValues(cronTabsName, "ReplicasFeatureGate", "dropped"))).To(Equal(before + 1))
			Expect(testutil.CollectAndCount(webhookDuration)).To(BeNumerically(">=", 1))
		})

		// The seed's first table: .spec.replicas behind ReplicasFeatureGate.
		DescribeTable("4-row table", func(ctx context.Context, row int, persisted, enabled bool, want any) {
			name := fmt.Sprintf("replicas-row%d", row)
			c, warnings := warnedClient()
			if persisted {
				setGates(ctx, map[string]bool{"ReplicasFeatureGate": true})
				Expect(k8sClient.Create(ctx, cronTab(name, "{replicas: 1}"))).To(Succeed())
				setGates(ctx, map[string]bool{"ReplicasFeatureGate": enabled})
				updateSpec(ctx, c, name, map[string]any{"replicas": int64(3)})
				Expect(storedSpec(ctx, name)["replicas"]).To(BeNumerically("==", want))
				if !enabled {
					Expect(warnings.all()).To(ContainElement(".spec.replicas not changed: feature gate ReplicasFeatureGate is disabled"))
				}
				return
			}
			setGates(ctx, map[string]bool{"ReplicasFeatureGate": enabled})
			By("create")
			Expect(c.Create(ctx, cronTab(name, "{replicas: 3}"))).To(Succeed())
			By("update")
			Expect(c.Create(ctx, cronTab(name+"-update", "{cronSpec: x}"))).To(Succeed())
			updateSpec(ctx, c, name+"-update", map[string]any{"replicas": int64(3)})
			for _, n := range []string{name, name + "-update"} {
				if want == nil {
					Expect(storedSpec(ctx, n)).NotTo(HaveKey("replicas"), n)
				} else {
					Expect(storedSpec(ctx, n)["replicas"]).To(BeNumerically("==", want), n)
				}
			}
		},
			Entry("row 1: not stored, gate disabled: dropped", 1, false, false, nil),
			Entry("row 2: not stored, gate enabled: set", 2, false, true, 3),
			Entry("row 3: stored, gate disabled: neither dropped nor updated, with a warning", 3, true, false, 1),
			Entry("row 4: stored, gate enabled: updated", 4, true, true, 3),
		)

		// The seed's second table: the request sets .spec.foo = {baz: 2, qux: 3};
		// rows 5-8 have .spec.foo = {qux: 1} stored.
		DescribeTable("8-row table (parent and child gates)", func(ctx context.Context, row int, persisted, foo, qux bool, want map[string]any) {
			name := fmt.Sprintf("foo-row%d", row)
			request := map[string]any{"baz": int64(2), "qux": int64(3)}
			expect := func(n string) {
				GinkgoHelper()
				got, found := storedSpec(ctx, n)["foo"]
				if want == nil {
					Expect(found).To(BeFalse(), "%s: .spec.foo is %v", n, got)
					return
				}
				Expect(got).To(Equal(want), n)
			}
			if persisted {
				setGates(ctx, map[string]bool{"FooFeatureGate": true, "QuxFeatureGate": true})
				Expect(k8sClient.Create(ctx, cronTab(name, "{foo: {qux: 1}}"))).To(Succeed())
				setGates(ctx, map[string]bool{"FooFeatureGate": foo, "QuxFeatureGate": qux})
				updateSpec(ctx, k8sClient, name, map[string]any{"foo": request})
				expect(name)
				return
			}
			setGates(ctx, map[string]bool{"FooFeatureGate": foo, "QuxFeatureGate": qux})
			Expect(k8sClient.Create(ctx, cronTab(name, "{foo: {baz: 2, qux: 3}}"))).To(Succeed())
			expect(name)
			Expect(k8sClient.Create(ctx, cronTab(name+"-update", "{cronSpec: x}"))).To(Succeed())
			updateSpec(ctx, k8sClient, name+"-update", map[string]any{"foo": request})
			expect(name + "-update")
		},
			Entry("row 1", 1, false, false, false, nil),
			Entry("row 2", 2, false, false, true, nil),
			Entry("row 3", 3, false, true, false, map[string]any{"baz": int64(2)}),
			Entry("row 4", 4, false, true, true, map[string]any{"baz": int64(2), "qux": int64(3)}),
			Entry("row 5", 5, true, false, false, map[string]any{"qux": int64(1)}),
			Entry("row 6", 6, true, false, true, map[string]any{"qux": int64(1)}),
			Entry("row 7", 7, true, true, false, map[string]any{"baz": int64(2), "qux": int64(1)}),
			Entry("row 8", 8, true, true, true, map[string]any{"baz": int64(2), "qux": int64(3)}),
		)

		It("gates the status subresource too", func(ctx context.Context) {
			setGates(ctx, map[string]bool{"NodesFeatureGate": false})
			obj := cronTab("status", "{cronSpec: x}")
			Expect(k8sClient.Create(ctx, obj)).To(Succeed())
			Expect(unstructured.SetNestedField(obj.Object, map[string]any{"nodes": int64(2), "phase": "Running"}, "status")).To(Succeed())
			Expect(k8sClient.Status().Update(ctx, obj)).To(Succeed())
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			Expect(obj.Object["status"]).To(Equal(map[string]any{"phase": "Running"}))

			setGates(ctx, map[string]bool{"NodesFeatureGate": true})
			Expect(unstructured.SetNestedField(obj.Object, int64(2), "status", "nodes")).To(Succeed())
			Expect(k8sClient.Status().Update(ctx, obj)).To(Succeed())
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			Expect(obj.Object["status"]).To(HaveKeyWithValue("nodes", BeNumerically("==", 2)))
		})

		It("warns when a request sets a Deprecated gate's field, and keeps it", func(ctx context.Context) {
			c, warnings := warnedClient()
			Expect(c.Create(ctx, cronTab("deprecated", "{image: busybox}"))).To(Succeed())
			Expect(warnings.all()).To(ContainElement(ContainSubstring("spec.image is deprecated; use a pod template")))
			Expect(storedSpec(ctx, "deprecated")).To(HaveKeyWithValue("image", "busybox"))
		})

		It("stops dropping, and removes its webhook entry, once the CustomFeatureGates is deleted", func(ctx context.Context) {
			setGates(ctx, map[string]bool{"ReplicasFeatureGate": false})
			Expect(dryRunSpec(ctx, "{replicas: 2}")).NotTo(HaveKey("replicas"))
			Expect(k8sClient.Delete(ctx, &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: cronTabsName}})).To(Succeed())
			Eventually(cronTabsEntry(ctx)).Should(BeNil())
			Eventually(func() map[string]any { return dryRunSpec(ctx, "{replicas: 2}") }).Should(HaveKey("replicas"))
		})
	})
})

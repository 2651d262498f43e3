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
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// createGated creates crd and a CustomFeatureGates over it with gates, and
// deletes both when the spec ends.
func createGated(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, gates ...featuresv1alpha1.FeatureGate) *featuresv1alpha1.CustomFeatureGates {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, crd)).To(Succeed())
	cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: crd.Name},
		Spec: featuresv1alpha1.CustomFeatureGatesSpec{FeatureGates: gates}}
	Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, cfg))).To(Succeed())
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, crd))).To(Succeed())
	})
	return cfg
}

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
// API server enforces them.
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
	awaitEnforced(ctx)
}

// awaitEnforced waits until the CronTab gates are Ready at their generation
// and requests are gated as they say: a dry-run create, and a dry-run status
// update of a stored probe, store what featuregate.Drop does. Under the
// policy backend Ready means the API server runs the policies, so requests are
// checked at once; the webhook reads the operator's cache, so they may lag.
func awaitEnforced(ctx context.Context) {
	GinkgoHelper()
	cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: cronTabsName}}
	Eventually(ready(ctx, cfg)).Should(HaveField("Status", metav1.ConditionTrue))
	set, err := featuregate.Compile(featuregate.FromAPI(cfg.Spec.FeatureGates))
	Expect(err).NotTo(HaveOccurred())

	const probeSpec = "{cronSpec: x, replicas: 3, image: i, foo: {baz: 2, qux: 3}}"
	want := cronTab("probe", probeSpec).Object
	set.Drop(want, nil)
	Expect(unstructured.SetNestedField(want, "UTC", "spec", "timeZone")).To(Succeed())
	// Integers as the API server decodes them.
	raw, err := json.Marshal(want)
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(raw, &want)).To(Succeed())
	probe := cronTab("status-probe", "{cronSpec: x}")
	if err := k8sClient.Create(ctx, probe); !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	enforced := func(g Gomega) {
		g.Expect(dryRunSpec(ctx, probeSpec)).To(Equal(want["spec"]))
		stored := cronTab("status-probe", "{}")
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(stored), stored)).To(Succeed())
		update := stored.DeepCopy()
		g.Expect(unstructured.SetNestedField(update.Object, map[string]any{"nodes": int64(2), "phase": "Running"}, "status")).To(Succeed())
		want := update.DeepCopy()
		set.Drop(want.Object, stored.Object)
		g.Expect(k8sClient.Status().Update(ctx, update, client.DryRunAll)).To(Succeed())
		g.Expect(update.Object["status"]).To(Equal(want.Object["status"]))
	}
	if strings.Contains(apimeta.FindStatusCondition(cfg.Status.Conditions, featuresv1alpha1.ConditionReady).Message, "enforced by the API server") {
		enforced(Default)
		return
	}
	Eventually(enforced).Should(Succeed())
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

// cronTabsPolicy is the operator's MutatingAdmissionPolicy for CronTabs.
func cronTabsPolicy(ctx context.Context) func() *admissionv1.MutatingAdmissionPolicy {
	return func() *admissionv1.MutatingAdmissionPolicy {
		policy := &admissionv1.MutatingAdmissionPolicy{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(cronTabsName)}, policy); err != nil {
			return nil
		}
		return policy
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

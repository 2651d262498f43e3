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
	"encoding/json"
	"errors"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

const widgetsName = "widgets.explain.example.com"

// widgetsManifest is the owner's manifest of an opted-in CRD served as
// v1beta1 and v1, as the owner applies it with kubectl.
const widgetsManifest = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.explain.example.com
  annotations:
    features.applyset.dev/explain: "true"
spec:
  group: explain.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, description: How many copies of the widget run.}
              image: {type: string}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, description: How many copies of the widget run.}
              image: {type: string}
`

var _ = Describe("Gate notes for kubectl explain", Ordered, func() {
	var cacheDir string
	kubectl := func(ctx context.Context, stdin string, args ...string) (string, error) {
		// A cache of its own, so that kubectl sees each new schema.
		return env.Kubectl(ctx, stdin, append([]string{"--cache-dir", cacheDir}, args...)...)
	}
	// explain is what kubectl explain says of a Widget field at version, on
	// one line; it fails until discovery serves the version.
	explain := func(ctx context.Context, version, field string) func(Gomega) string {
		return func(g Gomega) string {
			out, err := kubectl(ctx, "", "explain", "widgets."+field, "--api-version", "explain.example.com/"+version)
			g.Expect(err).NotTo(HaveOccurred(), out)
			return strings.Join(strings.Fields(out), " ")
		}
	}
	widgets := func(ctx context.Context) *apiextensionsv1.CustomResourceDefinition {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: widgetsName}, crd)).To(Succeed())
		return crd
	}
	cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: widgetsName}}
	const (
		replicasOff = "[features.applyset.dev] Feature gate Replicas (Alpha): disabled."
		replicasOn  = "[features.applyset.dev] Feature gate Replicas (Alpha): enabled."
		imageOn     = "[features.applyset.dev] Feature gate Image (Beta): enabled."
	)

	BeforeAll(func(ctx context.Context) {
		cacheDir = GinkgoT().TempDir()
		startOperator(BackendWebhook)
		out, err := kubectl(ctx, widgetsManifest, "apply", "--server-side", "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
		cfg.Spec.FeatureGates = []featuresv1alpha1.FeatureGate{
			{Name: "Replicas", PreRelease: featuresv1alpha1.Alpha, Enabled: ptr.To(false), FieldPaths: []string{".spec.replicas"}},
			{Name: "Image", PreRelease: featuresv1alpha1.Beta, Default: ptr.To(true), FieldPaths: []string{".spec.image"}},
		}
		Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, cfg))).To(Succeed())
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, &apiextensionsv1.CustomResourceDefinition{
				ObjectMeta: metav1.ObjectMeta{Name: widgetsName}}))).To(Succeed())
		})
	})

	It("shows each gated field's gate, stage and state at every served version, under the explain field manager", func(ctx context.Context) {
		for _, version := range []string{"v1beta1", "v1"} {
			Eventually(explain(ctx, version, "spec.replicas")).Should(ContainSubstring("How many copies of the widget run. " + replicasOff))
			Eventually(explain(ctx, version, "spec.image")).Should(ContainSubstring("DESCRIPTION: " + imageOn))
		}
		out, err := kubectl(ctx, "", "explain", "widgets.spec.replicas", "--api-version", "explain.example.com/v1")
		Expect(err).NotTo(HaveOccurred())
		GinkgoWriter.Printf("kubectl explain widgets.spec.replicas:\n%s\n", out)

		Expect(versionsManagers(widgets(ctx))).To(Equal([]string{identity.ExplainFieldManager}))
		Eventually(func() *metav1.Condition {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg)).To(Succeed())
			return apimeta.FindStatusCondition(cfg.Status.Conditions, featuresv1alpha1.ConditionExplainNotes)
		}).Should(SatisfyAll(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", ReasonNotesWritten)))
	})

	It("rewrites the note when the gate flips", func(ctx context.Context) {
		setWidgetGate(ctx, cfg, true)
		Eventually(explain(ctx, "v1", "spec.replicas")).Should(ContainSubstring(replicasOn))
		setWidgetGate(ctx, cfg, false)
		Eventually(explain(ctx, "v1", "spec.replicas")).Should(ContainSubstring(replicasOff))
	})

	It("refuses the owner's server-side apply without force: the explain field manager holds spec.versions", func(ctx context.Context) {
		Eventually(func() []string { return versionsManagers(widgets(ctx)) }).Should(Equal([]string{identity.ExplainFieldManager}))
		out, err := kubectl(ctx, widgetsManifest, "apply", "--server-side", "-f", "-")
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring(`conflict with "` + identity.ExplainFieldManager + `": .spec.versions`))
		Expect(notedFields(widgets(ctx))).To(Equal(4), "the refused apply changed nothing")
	})

	It("takes the owner's forced server-side apply, then writes the notes back once", func(ctx context.Context) {
		out, err := kubectl(ctx, widgetsManifest, "apply", "--server-side", "--force-conflicts", "-o", "json", "--show-managed-fields", "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
		applied := &apiextensionsv1.CustomResourceDefinition{}
		Expect(json.Unmarshal([]byte(out), applied)).To(Succeed())
		Expect(notedFields(applied)).To(BeZero(), "the owner's manifest has no notes")
		Expect(versionsManagers(applied)).To(Equal([]string{"kubectl"}))

		Eventually(func() int { return notedFields(widgets(ctx)) }).Should(Equal(4))
		crd := widgets(ctx)
		Expect(versionsManagers(crd)).To(Equal([]string{identity.ExplainFieldManager}))
		Expect(crd.Generation).To(Equal(applied.Generation+1), "one write restored the notes")

		By("reconciling again with nothing changed")
		before, err := testenv.Reconciles("customfeaturegates")
		Expect(err).NotTo(HaveOccurred())
		out, err = kubectl(ctx, "", "annotate", "--overwrite", "customfeaturegates", widgetsName, "example.com/nudge=1")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(func() float64 {
			n, err := testenv.Reconciles("customfeaturegates")
			Expect(err).NotTo(HaveOccurred())
			return n
		}).Should(BeNumerically(">", before))
		Expect(widgets(ctx).Generation).To(Equal(crd.Generation), "the notes settled: no write changed the CRD")
	})

	It("takes the owner's client-side apply, then writes the notes back", func(ctx context.Context) {
		// Client-side apply patches spec.versions to the manifest's, since
		// the live list differs from it: the notes go, each time.
		for range 2 {
			out, err := kubectl(ctx, widgetsManifest, "apply", "-o", "json", "-f", "-")
			Expect(err).NotTo(HaveOccurred(), out)
			applied := &apiextensionsv1.CustomResourceDefinition{}
			Expect(json.Unmarshal([]byte(out[strings.Index(out, "{"):]), applied)).To(Succeed())
			GinkgoWriter.Printf("after client-side apply: %d noted fields, generation %d\n", notedFields(applied), applied.Generation)
			Expect(notedFields(applied)).To(BeZero())
			Eventually(func() int { return notedFields(widgets(ctx)) }).Should(Equal(4))
		}
	})

	It("strips the notes when the owner removes the annotation, and writes them when it is back", func(ctx context.Context) {
		out, err := kubectl(ctx, "", "annotate", "crd", widgetsName, "features.applyset.dev/explain-")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(func() int { return notedFields(widgets(ctx)) }).Should(BeZero())
		Eventually(explain(ctx, "v1", "spec.replicas")).ShouldNot(ContainSubstring("features.applyset.dev"))
		Eventually(func() *metav1.Condition {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg)).To(Succeed())
			return apimeta.FindStatusCondition(cfg.Status.Conditions, featuresv1alpha1.ConditionExplainNotes)
		}).Should(BeNil())

		out, err = kubectl(ctx, "", "annotate", "crd", widgetsName, "features.applyset.dev/explain=true")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(func() int { return notedFields(widgets(ctx)) }).Should(Equal(4))
	})

	It("strips the notes when the CustomFeatureGates is deleted", func(ctx context.Context) {
		Expect(k8sClient.Delete(ctx, cfg)).To(Succeed())
		Eventually(func() int { return notedFields(widgets(ctx)) }).Should(BeZero())
		Expect(widgets(ctx).Annotations).To(HaveKeyWithValue("features.applyset.dev/explain", "true"))

		By("the owner applying the same versions again, without force")
		out, err := kubectl(ctx, widgetsManifest, "apply", "--server-side", "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(versionsManagers(widgets(ctx))).To(ContainElement("kubectl"))
	})

	It("says, without the opt-in right to patch CRDs, which component grants it", func(ctx context.Context) {
		// The operator's rights as the default install grants them, without
		// config/components/explain-notes.
		limited := clientWithManagerRole(ctx)

		gates := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: widgetsName}, Spec: *cfg.Spec.DeepCopy()}
		// A copy of the CRD whose note is missing: the notes must be written.
		crd := widgets(ctx)
		spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		replicas := spec.Properties["replicas"]
		replicas.Description = "How many copies of the widget run."
		spec.Properties["replicas"] = replicas
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		r := &Reconciler{Client: limited, Reader: limited, Recorder: events.NewFakeRecorder(10)}
		result := r.writeNotes(ctx, gates, crd)
		Expect(result.err).To(MatchError(ContainSubstring("add config/components/explain-notes")))
		Expect(apierrors.IsForbidden(errors.Unwrap(result.err))).To(BeTrue(), "not the authorizer's refusal: %v", result.err)
		r.setExplainCondition(gates, result)
		Expect(apimeta.FindStatusCondition(gates.Status.Conditions, featuresv1alpha1.ConditionExplainNotes)).To(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonNotesFailed),
			HaveField("Message", ContainSubstring("components.explainNotes.enabled"))))
	})

	It("never writes a CRD that does not ask for notes, even one whose text looks like a note", func(ctx context.Context) {
		crd := gizmos()
		crd.Name, crd.Spec.Group = "gizmos.noexplain.example.com", "noexplain.example.com"
		// The owner's own text that looks like a note is not the operator's to strip.
		for i := range crd.Spec.Versions {
			spec := crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"]
			replicas := spec.Properties["replicas"]
			replicas.Description = featuregate.AddNote("How many.", "[features.applyset.dev] written by the owner")
			spec.Properties["replicas"] = replicas
			crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		}
		gated := createGated(ctx, crd,
			featuresv1alpha1.FeatureGate{Name: "Replicas", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.replicas"}})
		Eventually(ready(ctx, gated)).Should(HaveField("Status", metav1.ConditionTrue))
		Expect(apimeta.FindStatusCondition(gated.Status.Conditions, featuresv1alpha1.ConditionExplainNotes)).To(BeNil())
		live := &apiextensionsv1.CustomResourceDefinition{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(crd), live)).To(Succeed())
		Expect(live.Generation).To(Equal(int64(1)))
		for _, entry := range live.ManagedFields {
			Expect(entry.Manager).NotTo(Equal(identity.ExplainFieldManager))
		}
	})
})

// setWidgetGate turns the Replicas gate of the Widget gates on or off.
func setWidgetGate(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, on bool) {
	GinkgoHelper()
	Eventually(func() error {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg); err != nil {
			return err
		}
		cfg.Spec.FeatureGates[0].Enabled = ptr.To(on)
		return k8sClient.Update(ctx, cfg)
	}).Should(Succeed())
}

// notedFields counts the gated Widget fields, over all versions, whose
// descriptions carry a gate note.
func notedFields(crd *apiextensionsv1.CustomResourceDefinition) int {
	n := 0
	for _, v := range crd.Spec.Versions {
		for _, field := range v.Schema.OpenAPIV3Schema.Properties["spec"].Properties {
			if strings.Contains(field.Description, "[features.applyset.dev] ") {
				n++
			}
		}
	}
	return n
}

// versionsManagers are the field managers that own crd's spec.versions.
func versionsManagers(crd *apiextensionsv1.CustomResourceDefinition) []string {
	var managers []string
	for _, entry := range crd.ManagedFields {
		if entry.FieldsV1 == nil {
			continue
		}
		var fields map[string]map[string]any
		Expect(json.Unmarshal(entry.FieldsV1.GetRawBytes(), &fields)).To(Succeed())
		if _, ok := fields["f:spec"]["f:versions"]; ok {
			managers = append(managers, entry.Manager)
		}
	}
	slices.Sort(managers)
	return managers
}

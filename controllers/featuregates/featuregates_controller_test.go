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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// The same specs run through each backend against one API server, each in
// one ordered container with its own operator: the status specs need the CRD
// to be missing at first, and the dropping specs need it and the gates in
// place. Where the backends differ, the specs say how.
var _ = Describe("CustomFeatureGates through the webhook", Ordered, func() { gateSpecs(BackendWebhook) })
var _ = Describe("CustomFeatureGates through admission policies", Ordered, func() { gateSpecs(BackendPolicy) })

func gateSpecs(backend Backend) {
	BeforeAll(func() {
		startOperator(backend)
		DeferCleanup(func(ctx context.Context) {
			cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: cronTabsName}}
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, cfg))).To(Succeed())
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, cronTabs()))).To(Succeed())
			Eventually(func() bool {
				return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKey{Name: cronTabsName}, cronTabs()))
			}).Should(BeTrue())
		})
	})

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
			Expect(cronTabsPolicy(ctx)()).To(BeNil())
		})

		It("becomes Ready, and starts dropping, when the CRD arrives", func(ctx context.Context) {
			Expect(k8sClient.Create(ctx, cronTabs())).To(Succeed())
			Eventually(ready(ctx, cfg)).Should(SatisfyAll(HaveField("Status", metav1.ConditionTrue),
				HaveField("Message", HavePrefix("1 of 3 gates enabled over fields of crontabs.stable.example.com; enforced by the "+
					map[Backend]string{BackendWebhook: "webhook", BackendPolicy: "API server"}[backend]))))
			Expect(cfg.Status.UnknownFieldPaths).To(BeEmpty())
			// Under the policy backend the API server refuses writes (503)
			// until its policy plugin has read the new CRD's schema.
			start := time.Now()
			Eventually(func(g Gomega) map[string]any {
				probe := cronTab("probe", "{replicas: 1, cronSpec: x}")
				g.Expect(k8sClient.Create(ctx, probe, client.DryRunAll)).To(Succeed())
				return probe.Object["spec"].(map[string]any)
			}).Should(Equal(map[string]any{"cronSpec": "x", "timeZone": "UTC"}))
			GinkgoWriter.Printf("the %s backend dropped fields %s after the CRD was created\n", backend, time.Since(start))
		})

		// Before a later spec gates .spec.timeZone, which every object has by default.
		It("sends the webhook only the requests that hold a gated field", func(ctx context.Context) {
			if backend == BackendPolicy {
				Skip("the policy backend registers no webhook")
			}
			calls := func() uint64 {
				m := &dto.Metric{}
				Expect(webhookDuration.WithLabelValues(cronTabsName).(prometheus.Histogram).Write(m)).To(Succeed())
				return m.GetHistogram().GetSampleCount()
			}
			// A request with a gated field reaches the webhook once the API
			// server has loaded the entry, condition and all.
			before := calls()
			Eventually(func(g Gomega) {
				gated := cronTab("touching", "{cronSpec: '* * * * */5', replicas: 3}")
				g.Expect(k8sClient.Create(ctx, gated, client.DryRunAll)).To(Succeed())
				g.Expect(gated.Object["spec"]).NotTo(HaveKey("replicas"))
			}).Should(Succeed())
			Expect(calls()).To(BeNumerically(">", before))

			before = calls()
			plain := cronTab("untouched", "{cronSpec: '* * * * */5'}")
			Expect(k8sClient.Create(ctx, plain, client.DryRunAll)).To(Succeed())
			Expect(calls()).To(Equal(before), "the webhook was called for a request without gated fields")
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
			if backend == BackendPolicy {
				Skip("the policy backend registers no webhook")
			}
			Eventually(cronTabsEntry(ctx)).ShouldNot(BeNil())
			entry := cronTabsEntry(ctx)()
			Expect(entry.Rules).To(ConsistOf(SatisfyAll(
				HaveField("Operations", ConsistOf(admissionv1.Create, admissionv1.Update)),
				HaveField("Rule.APIGroups", Equal([]string{"stable.example.com"})),
				HaveField("Rule.APIVersions", Equal([]string{"v1"})),
				HaveField("Rule.Resources", Equal([]string{"crontabs", "crontabs/status"})),
			), SatisfyAll( // the probe behind Ready: a condition keeps all but dry-run probes away
				HaveField("Operations", ConsistOf(admissionv1.Update)),
				HaveField("Rule.Resources", Equal([]string{"customfeaturegates/status"})),
			)))
			Expect(entry.MatchPolicy).To(HaveValue(Equal(admissionv1.Equivalent)))
			Expect(entry.FailurePolicy).To(HaveValue(Equal(admissionv1.Fail)))
			Expect(entry.SideEffects).To(HaveValue(Equal(admissionv1.SideEffectClassNone)))
			Expect(entry.TimeoutSeconds).To(HaveValue(BeNumerically("<=", 5)))
			Expect(entry.ClientConfig.URL).To(HaveValue(Equal(env.WebhookURL() + WebhookPath)))
			Expect(entry.MatchConditions).To(ConsistOf(
				HaveField("Expression", ContainSubstring("request.dryRun")), // probes of this revision only
				HaveField("Name", featuregate.TouchesGatedFields),           // requests holding a gated field
			))

			config := &admissionv1.MutatingWebhookConfiguration{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: DefaultConfigurationName}, config)).To(Succeed())
			Expect(config.ManagedFields).To(ContainElement(SatisfyAll(
				HaveField("Manager", identity.WebhooksFieldManager), HaveField("Operation", metav1.ManagedFieldsOperationApply))))
		})
	})

	Describe("the policies", func() {
		It("are written for the CRD: its storage version, resources and status, owned by the gates, under their own field manager", func(ctx context.Context) {
			if backend == BackendWebhook {
				Skip("the webhook backend writes no policy")
			}
			Eventually(cronTabsPolicy(ctx)).ShouldNot(BeNil())
			policy := cronTabsPolicy(ctx)()
			Expect(policy.Spec.MatchConstraints.ResourceRules).To(ConsistOf(SatisfyAll(
				HaveField("Operations", ConsistOf(admissionv1.Create, admissionv1.Update)),
				HaveField("Rule.APIGroups", Equal([]string{"stable.example.com"})),
				HaveField("Rule.APIVersions", Equal([]string{"v1"})),
				HaveField("Rule.Resources", Equal([]string{"crontabs", "crontabs/status"})),
			), SatisfyAll( // the probe behind Ready: dry-run status patches of the gates only
				HaveField("Operations", ConsistOf(admissionv1.Update)),
				HaveField("Rule.Resources", Equal([]string{"customfeaturegates/status"})),
				HaveField("ResourceNames", Equal([]string{cronTabsName})),
			)))
			// Probes only as dry runs, the CRD's requests when they hold a disabled field.
			Expect(policy.Spec.MatchConditions).To(ConsistOf(SatisfyAll(
				HaveField("Name", featuregate.TouchesGatedFields), HaveField("Expression", ContainSubstring("request.dryRun")))))
			Expect(policy.Spec.MatchConstraints.MatchPolicy).To(HaveValue(Equal(admissionv1.Equivalent)))
			Expect(policy.Spec.FailurePolicy).To(HaveValue(Equal(admissionv1.Fail)))
			Expect(policy.OwnerReferences).To(ConsistOf(SatisfyAll(
				HaveField("Kind", "CustomFeatureGates"), HaveField("Name", cronTabsName), HaveField("Controller", HaveValue(BeTrue())))))
			Expect(policy.ManagedFields).To(ConsistOf(SatisfyAll(
				HaveField("Manager", identity.PoliciesFieldManager), HaveField("Operation", metav1.ManagedFieldsOperationApply))))
			binding := &admissionv1.MutatingAdmissionPolicyBinding{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: policy.Name}, binding)).To(Succeed())
			Expect(binding.Spec.PolicyName).To(Equal(policy.Name))
			Expect(cronTabsEntry(ctx)()).To(BeNil(), "a webhook entry would enforce the gates a second time")
		})
	})

	versionSpecs(backend)

	Describe("the field-dropping webhook", func() {
		BeforeAll(func(ctx context.Context) {
			updateGates(ctx, func(cfg *featuresv1alpha1.CustomFeatureGates) { cfg.Spec.FeatureGates = gates() })
			awaitObserved(ctx)
			awaitEnforced(ctx)
		})

		It("drops a disabled gate's field on create; a dry-run create shows the drop and stores nothing", func(ctx context.Context) {
			before := testutil.ToFloat64(droppedFields.WithLabelValues(cronTabsName, "ReplicasFeatureGate", "dropped"))
			preview := cronTab("dry", "{cronSpec: '* * * * */5', replicas: 3}")
			Expect(k8sClient.Create(ctx, preview, client.DryRunAll)).To(Succeed())
			Expect(preview.Object["spec"]).To(Equal(map[string]any{"cronSpec": "* * * * */5", "timeZone": "UTC"}))
			Expect(apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(preview), cronTab("dry", "{}")))).To(BeTrue())
			if backend == BackendWebhook {
				Expect(testutil.ToFloat64(droppedFields.WithLabelValues(cronTabsName, "ReplicasFeatureGate", "dropped"))).To(Equal(before + 1))
				Expect(testutil.CollectAndCount(webhookDuration)).To(BeNumerically(">=", 1))
			} else {
				Expect(testutil.ToFloat64(droppedFields.WithLabelValues(cronTabsName, "ReplicasFeatureGate", "dropped"))).To(Equal(before),
					"the webhook was called")
			}
		})

		policyCheckCounterSpec(backend)

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
				switch {
				case enabled:
				case backend == BackendWebhook:
					Expect(warnings.all()).To(ContainElement(".spec.replicas not changed: feature gate ReplicasFeatureGate is disabled"))
				default:
					// A difference the README lists: a policy cannot warn; a
					// validating one sees the object after the restore.
					Expect(warnings.all()).NotTo(ContainElement(ContainSubstring("not changed")))
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
			// The API server loads a new validating policy a moment after it is written.
			Eventually(func() []string {
				c, warnings := warnedClient()
				Expect(c.Create(ctx, cronTab("deprecated-probe", "{image: busybox}"), client.DryRunAll)).To(Succeed())
				return warnings.all()
			}).Should(ContainElement(ContainSubstring("spec.image is deprecated; use a pod template")))
			c, warnings := warnedClient()
			Expect(c.Create(ctx, cronTab("deprecated", "{image: busybox}"))).To(Succeed())
			Expect(warnings.all()).To(ContainElement(ContainSubstring("spec.image is deprecated; use a pod template")))
			Expect(storedSpec(ctx, "deprecated")).To(HaveKeyWithValue("image", "busybox"))
		})

		It("leaves metadata.generation alone when an update changes only a dropped or a kept field", func(ctx context.Context) {
			setGates(ctx, map[string]bool{"ReplicasFeatureGate": false})
			generation := func(name string) int64 {
				obj := cronTab(name, "{}")
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
				return obj.GetGeneration()
			}
			Expect(k8sClient.Create(ctx, cronTab("generation-dropped", "{cronSpec: x}"))).To(Succeed())
			updateSpec(ctx, k8sClient, "generation-dropped", map[string]any{"replicas": int64(3)})
			Expect(storedSpec(ctx, "generation-dropped")).NotTo(HaveKey("replicas"))
			Expect(generation("generation-dropped")).To(Equal(int64(1)))

			setGates(ctx, map[string]bool{"ReplicasFeatureGate": true})
			Expect(k8sClient.Create(ctx, cronTab("generation-kept", "{cronSpec: x, replicas: 1}"))).To(Succeed())
			setGates(ctx, map[string]bool{"ReplicasFeatureGate": false})
			updateSpec(ctx, k8sClient, "generation-kept", map[string]any{"replicas": int64(3)})
			Expect(storedSpec(ctx, "generation-kept")["replicas"]).To(BeNumerically("==", 1))
			Expect(generation("generation-kept")).To(Equal(int64(1)))

			updateSpec(ctx, k8sClient, "generation-kept", map[string]any{"cronSpec": "y"})
			Expect(generation("generation-kept")).To(Equal(int64(2)), "a change to a field no gate covers")
		})

		It("is Ready only once the API server runs the rewritten policy, and says so meanwhile", func(ctx context.Context) {
			if backend == BackendWebhook {
				Skip("the webhook reads the gates from the operator's cache")
			}
			// setGates checks requests the moment Ready is True again.
			for _, on := range []bool{true, false, true, false} {
				setGates(ctx, map[string]bool{"ReplicasFeatureGate": on})
			}
			Eventually(func(g Gomega) {
				list := &eventsv1.EventList{}
				g.Expect(k8sClient.List(ctx, list)).To(Succeed())
				g.Expect(list.Items).To(ContainElement(SatisfyAll(HaveField("Regarding.Name", cronTabsName), HaveField("Reason", ReasonPolicyLoading),
					HaveField("Note", HaveSuffix("waiting for the API server to load them")))))
			}).Should(Succeed())
		})

		It("is Ready only once the API server calls the webhook through the rewritten entry, and says so meanwhile", func(ctx context.Context) {
			if backend == BackendPolicy {
				Skip("the spec above probes the policies")
			}
			// Each change of paths rewrites the entry's condition: a new revision.
			for _, paths := range [][]string{{".spec.foo.baz"}, {".spec.cronSpec"}, {".spec.foo.baz"}, nil} {
				updateGates(ctx, func(cfg *featuresv1alpha1.CustomFeatureGates) {
					cfg.Spec.FeatureGates = slices.DeleteFunc(cfg.Spec.FeatureGates, func(g featuresv1alpha1.FeatureGate) bool { return g.Name == "Probed" })
					if paths != nil {
						cfg.Spec.FeatureGates = append(cfg.Spec.FeatureGates, featuresv1alpha1.FeatureGate{
							Name: "Probed", PreRelease: featuresv1alpha1.Beta, Default: ptr.To(true), FieldPaths: paths})
					}
				})
				awaitObserved(ctx)
				awaitEnforced(ctx)
			}
			Eventually(func(g Gomega) {
				list := &eventsv1.EventList{}
				g.Expect(k8sClient.List(ctx, list)).To(Succeed())
				g.Expect(list.Items).To(ContainElement(SatisfyAll(HaveField("Regarding.Name", cronTabsName), HaveField("Reason", ReasonWebhookLoading),
					HaveField("Note", HaveSuffix("waiting for the API server to call the webhook through it")))))
			}).Should(Succeed())
		})

		It("stops dropping, and removes its webhook entry or policies, once the CustomFeatureGates is deleted", func(ctx context.Context) {
			setGates(ctx, map[string]bool{"ReplicasFeatureGate": false})
			Expect(dryRunSpec(ctx, "{replicas: 2}")).NotTo(HaveKey("replicas"))
			Expect(k8sClient.Delete(ctx, &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: cronTabsName}})).To(Succeed())
			Eventually(cronTabsEntry(ctx)).Should(BeNil())
			Eventually(cronTabsPolicy(ctx)).Should(BeNil())
			Eventually(func() map[string]any { return dryRunSpec(ctx, "{replicas: 2}") }).Should(HaveKey("replicas"))
		})
	})
}

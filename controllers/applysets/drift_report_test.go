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

package applysets

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	appsv1 "k8s.io/api/apps/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// driftOf reads the set's status.drift, for Eventually.
func driftOf(ctx context.Context, set *applyv1alpha1.ApplySet) func() []applyv1alpha1.Drift {
	return func() []applyv1alpha1.Drift {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		return set.Status.Drift
	}
}

// scaleAsKubectl sets a Deployment's replicas with a merge patch under the
// field manager kubectl-scale, as kubectl scale changes it: an update, not an apply.
func scaleAsKubectl(ctx context.Context, ns, name string, replicas int32) {
	GinkgoHelper()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas))
	Expect(k8sClient.Patch(ctx, d, patch, client.FieldOwner("kubectl-scale"))).To(Succeed())
}

// eventsOf are the Events of reason about the set named name; an Event
// the recorder told again carries a series.
func eventsOf(ctx context.Context, ns, name, reason string) func() []eventsv1.Event {
	return func() []eventsv1.Event {
		list := &eventsv1.EventList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		var out []eventsv1.Event
		for _, e := range list.Items {
			if e.Regarding.Name == name && e.Reason == reason {
				out = append(out, e)
			}
		}
		return out
	}
}

var _ = Describe("driftPolicy Report", func() {
	It("leaves a kubectl scale in place and reports it once, applies a change of the declaration, and Correct takes it back", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "audited", deployment(2))
		set.Spec.Wait = ptr.To(false) // no controller rolls the Deployment out here
		set.Spec.DriftPolicy = applyv1alpha1.DriftPolicyReport
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(set.Status.Drift).To(BeEmpty())

		By("scaling the Deployment as kubectl scale does")
		scaleAsKubectl(ctx, ns, "web", 5)
		poke(ctx, set)
		Eventually(driftOf(ctx, set)).Should(ConsistOf(SatisfyAll(HaveField("Name", "web"), HaveField("Manager", "kubectl-scale"),
			HaveField("Fields", ConsistOf(".spec.replicas")), HaveField("Action", applyv1alpha1.DriftReported))))
		ready := condition(ctx, set, applyv1alpha1.ConditionReady)()
		Expect(ready.Status).To(Equal(metav1.ConditionTrue))
		Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonDrifted))
		Expect(ready.Message).To(ContainSubstring("status.drift"))
		Expect(testutil.ToFloat64(driftedObjects.WithLabelValues("ApplySet", ns, "audited"))).To(BeEquivalentTo(1))

		By("reconciling again, and again: the change stays, and is told once")
		poke(ctx, set)
		Consistently(replicaCount(ctx, ns)).WithTimeout(2 * time.Second).Should(BeEquivalentTo(5))
		poke(ctx, set)
		Consistently(replicaCount(ctx, ns)).WithTimeout(2 * time.Second).Should(BeEquivalentTo(5))
		Eventually(eventsOf(ctx, ns, "audited", ReasonDriftReported)).Should(HaveLen(1))
		Expect(eventsOf(ctx, ns, "audited", ReasonDriftReported)()[0].Series).To(BeNil(), "the drift was told more than once")
		Expect(eventsOf(ctx, ns, "audited", ReasonDriftCorrected)()).To(BeEmpty())

		By("changing the declaration: the set applies it")
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.Resources = []applyv1alpha1.Resource{deployment(3)} })
		readyFor(ctx, set)
		Eventually(replicaCount(ctx, ns)).Should(BeEquivalentTo(3))
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Reason", applyv1alpha1.ReasonSucceeded))
		Expect(reportedDrift(set.Status.Drift)).To(BeEmpty())

		By("setting driftPolicy Correct: the next kubectl scale is taken back")
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.DriftPolicy = applyv1alpha1.DriftPolicyCorrect })
		readyFor(ctx, set)
		scaleAsKubectl(ctx, ns, "web", 6)
		poke(ctx, set)
		Eventually(replicaCount(ctx, ns)).Should(BeEquivalentTo(3), "the declared value was not put back")
		Eventually(driftOf(ctx, set)).Should(ConsistOf(SatisfyAll(HaveField("Manager", "kubectl-scale"),
			HaveField("Action", applyv1alpha1.DriftCorrected))))
	})

	It("under Manual approval audits: drift is reported and waits for no one, a change of the declaration waits for approval", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "audit", inlineConfigMap("a", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		set.Spec.DriftPolicy = applyv1alpha1.DriftPolicyReport
		set.Spec.Interval = &metav1.Duration{Duration: 2 * time.Second}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		approve(ctx, set, awaiting(ctx, set))
		readyFor(ctx, set)

		By("editing a member: the drift is reported, and there is nothing to approve")
		editData(ctx, ns, "a", "edited")
		Eventually(driftOf(ctx, set)).Should(ConsistOf(SatisfyAll(HaveField("Name", "a"), HaveField("Manager", "kubectl-edit"),
			HaveField("Action", applyv1alpha1.DriftReported))))
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Reason", applyv1alpha1.ReasonDrifted))
		Consistently(dataOfA(ctx, ns)).WithTimeout(3 * time.Second).Should(Equal("edited"))

		By("changing the declaration: that change waits for approval, then is applied")
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("a", "2")}
		})
		digest := awaiting(ctx, set)
		Expect(set.Status.Plan.Update).To(ConsistOf(HaveField("ObjectReference.Name", "a")))
		Expect(dataOfA(ctx, ns)()).To(Equal("edited"))
		approve(ctx, set, digest)
		Eventually(dataOfA(ctx, ns)).Should(Equal("2"))
	})
})

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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

var _ = Describe("History", func() {
	It("keeps an entry a declaration and result, newest first, and adds none for a steady set", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "web", inlineConfigMap("a", "1"), inlineConfigMap("b", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Eventually(history(ctx, set)).Should(HaveLen(1))

		By("changing the set twice")
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("a", "2"), inlineConfigMap("b", "1")}
		})
		readyFor(ctx, set)
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("a", "2")}
		})
		readyFor(ctx, set)
		Eventually(history(ctx, set)).Should(HaveLen(3))
		h := set.Status.History
		for i, want := range []struct {
			generation                 int64
			applied, pruned, unchanged int32
		}{{3, 0, 1, 1}, {2, 1, 0, 1}, {1, 2, 0, 0}} {
			Expect(h[i].ObservedGeneration).To(Equal(want.generation), "entry %d", i)
			Expect(h[i].LastReconciledStatus).To(Equal(applyv1alpha1.ReasonSucceeded))
			Expect(h[i].Digest).To(HavePrefix("sha256:"))
			Expect(h[i].Counts).NotTo(BeNil())
			Expect(ptr.Deref(h[i].Counts.Applied, 0)).To(Equal(want.applied), "applied in entry %d", i)
			Expect(ptr.Deref(h[i].Counts.Pruned, 0)).To(Equal(want.pruned), "pruned in entry %d", i)
			Expect(ptr.Deref(h[i].Counts.Unchanged, 0)).To(Equal(want.unchanged), "unchanged in entry %d", i)
		}
		Expect(h[0].Digest).NotTo(Equal(h[1].Digest))
		Expect(h[1].Digest).NotTo(Equal(h[2].Digest))

		By("reconciling the steady set again: no write, no entry")
		before := set.ResourceVersion
		poke(ctx, set)
		poked := set.ResourceVersion
		Expect(poked).NotTo(Equal(before))
		Consistently(func() string {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return set.ResourceVersion
		}).WithTimeout(2*time.Second).Should(Equal(poked), "a steady set's reconcile wrote")
		Expect(set.Status.History).To(Equal(h))
	})

	It("names the approver of an approved run, from the request that approved it, whatever annotation a user wrote", func(ctx context.Context) {
		ns := newNamespace(ctx)
		alice, mallory := userIn(ctx, ns, "alice", "update", "approve"), userIn(ctx, ns, "mallory", "update")
		set := newSet(ns, "approved", inlineConfigMap("a", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		set.Annotations = map[string]string{applyv1alpha1.ApprovedByAnnotation: "sha256:" + strings.Repeat("ab", 32) + " alice"}
		Expect(mallory.Create(ctx, set)).To(Succeed())
		Expect(set.Annotations).NotTo(HaveKey(applyv1alpha1.ApprovedByAnnotation), "a set was created naming an approver")
		digest := awaiting(ctx, set)

		By("writing the annotation without approving: the stored value is put back")
		forge := func(c client.Client, change func(*applyv1alpha1.ApplySet)) func() error {
			return func() error {
				latest := &applyv1alpha1.ApplySet{}
				Expect(c.Get(ctx, client.ObjectKeyFromObject(set), latest)).To(Succeed())
				latest.Annotations = map[string]string{applyv1alpha1.ApprovedByAnnotation: digest + " bob"}
				change(latest)
				if err := c.Update(ctx, latest); err != nil {
					return err
				}
				*set = *latest
				return nil
			}
		}
		Eventually(forge(mallory, func(*applyv1alpha1.ApplySet) {})).Should(Succeed())
		Expect(set.Annotations).NotTo(HaveKey(applyv1alpha1.ApprovedByAnnotation), "an author named an approver")

		By("approving as alice, with another approver written beside")
		Expect(forge(alice, func(s *applyv1alpha1.ApplySet) { s.Spec.ApprovedPlan = &digest })()).To(Succeed())
		Expect(set.Annotations).To(HaveKeyWithValue(applyv1alpha1.ApprovedByAnnotation, digest+" alice"))
		readyFor(ctx, set)
		Eventually(history(ctx, set)).Should(ContainElement(SatisfyAll(
			HaveField("LastReconciledStatus", applyv1alpha1.ReasonSucceeded), HaveField("Plan", digest), HaveField("ApprovedBy", "alice"))))
		Expect(set.Status.History[len(set.Status.History)-1].ApprovedBy).To(BeEmpty(), "the entry awaiting approval names an approver")
		Eventually(eventsOf(ctx, ns, set.Name, ReasonApprovedPlanApplied)).Should(ContainElement(HaveField("Note", ContainSubstring("approved by alice"))))

		By("writing another approver over the approved plan: the stored value is put back")
		Expect(forge(alice, func(*applyv1alpha1.ApplySet) {})()).To(Succeed())
		Expect(set.Annotations).To(HaveKeyWithValue(applyv1alpha1.ApprovedByAnnotation, digest+" alice"))
	})
})

func history(ctx context.Context, set *applyv1alpha1.ApplySet) func() []applyv1alpha1.HistoryEntry {
	return func() []applyv1alpha1.HistoryEntry {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		return set.Status.History
	}
}

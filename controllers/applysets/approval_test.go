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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// awaiting waits until set's plan awaits approval and returns its digest.
func awaiting(ctx context.Context, set *applyv1alpha1.ApplySet, other ...string) string {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		c := condition(ctx, set, applyv1alpha1.ConditionReady)()
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Reason).To(Equal(applyv1alpha1.ReasonAwaitingApproval))
		g.Expect(c.ObservedGeneration).To(Equal(set.Generation))
		g.Expect(set.Status.Plan.Digest).To(HavePrefix("sha256:"))
		g.Expect(other).NotTo(ContainElement(set.Status.Plan.Digest), "the plan awaiting approval is one approved before")
	}).Should(Succeed())
	return set.Status.Plan.Digest
}

func approve(ctx context.Context, set *applyv1alpha1.ApplySet, digest string) {
	GinkgoHelper()
	updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.ApprovedPlan = &digest })
}

// editData changes a ConfigMap's data with an update, as kubectl edit does.
func editData(ctx context.Context, ns, name, value string) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm := &corev1.ConfigMap{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			return err
		}
		cm.Data["k"] = value
		return k8sClient.Update(ctx, cm, client.FieldOwner("kubectl-edit"))
	})).To(Succeed())
}

// dataOfA is the value of ConfigMap a.
func dataOfA(ctx context.Context, ns string) func() string {
	return func() string {
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, cm)).To(Succeed())
		return cm.Data["k"]
	}
}

var _ = Describe("Approval", func() {
	It("under Manual applies nothing until the plan's digest is approved, then applies it once", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "manual", inlineConfigMap("a", "1"), inlineConfigMap("b", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		set.Spec.Interval = &metav1.Duration{Duration: 2e9}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())

		first := awaiting(ctx, set)
		Expect(names(set.Status.Plan.Create)).To(ConsistOf("ConfigMap a", "ConfigMap b"))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse(), "a plan awaiting approval was applied")
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, set.Name)).Should(ContainElement("Normal/" + applyv1alpha1.ReasonAwaitingApproval))
		Expect(set.Status.Approval.AwaitingSince).NotTo(BeNil())
		Expect(awaitingSinceMetric(ns, set.Name)).To(Equal(float64(set.Status.Approval.AwaitingSince.Unix())))
		waitsBefore := approvalWaits()

		By("approving it")
		approve(ctx, set, first)
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "a") && configMapExists(ctx, ns, "b")).To(BeTrue())
		Expect(set.Status.Approval.Sequence).To(Equal(ptr.To[int64](1)))
		Expect(set.Status.Approval.LastApplied).To(Equal(first))
		Expect(set.Status.Approval.AwaitingSince).To(BeNil())
		Expect(awaitingSinceMetric(ns, set.Name)).To(BeZero(), "a set that awaits nothing is still reported as awaiting")
		Expect(approvalWaits()).To(BeNumerically(">", waitsBefore), "the wait of the approved plan was not observed")

		By("drift waiting for approval, and the same drift again waiting for a new one")
		editData(ctx, ns, "a", "edited")
		second := awaiting(ctx, set, first)
		Expect(set.Status.Plan.Update).To(ConsistOf(HaveField("ObjectReference.Name", "a")))
		Consistently(dataOfA(ctx, ns)).WithTimeout(3e9).Should(Equal("edited"), "drift was put back without approval")
		approve(ctx, set, second)
		Eventually(dataOfA(ctx, ns)).Should(Equal("1"))
		readyFor(ctx, set)
		editData(ctx, ns, "a", "edited")
		awaiting(ctx, set, first, second)
		Consistently(dataOfA(ctx, ns)).WithTimeout(3e9).Should(Equal("edited"), "a spent approval was applied again")
		Expect(set.Status.Approval.Sequence).To(Equal(ptr.To[int64](2)))
	})

	It("spends an approval before the writes it allows, so no digest is left to replay when the last status write fails", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "spent-first", inlineConfigMap("a", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		first := awaiting(ctx, set)

		By("refusing every status write of the set that records an applied plan, as a status too large for etcd would be")
		refuseAppliedPlans(ctx, ns)
		approve(ctx, set, first)
		Eventually(func() bool { return configMapExists(ctx, ns, "a") }).Should(BeTrue())
		Eventually(func() *int64 {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return ptr.Deref(set.Status.Approval, applyv1alpha1.ApprovalStatus{}).Sequence
		}).Should(Equal(ptr.To[int64](1)), "the approval was not spent")
		Expect(set.Status.Approval.LastApplied).To(Equal(first))
		Expect(ptr.Deref(set.Status.Plan.DryRun, false)).To(BeTrue(), "the test's policy let the applied plan be written")
	})

	It("under Manual applies nothing of a stale digest, and shows the new plan", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "stale", inlineConfigMap("a", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		stale := awaiting(ctx, set)

		By("changing the set, then approving the plan seen before the change")
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = append(set.Spec.Resources, inlineConfigMap("b", "1"))
			set.Spec.ApprovedPlan = &stale
		})
		fresh := awaiting(ctx, set, stale)
		Expect(names(set.Status.Plan.Create)).To(ConsistOf("ConfigMap a", "ConfigMap b"))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse(), "a stale approval applied a different plan")

		approve(ctx, set, fresh)
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "b")).To(BeTrue())
	})

	It("under Prune applies creates and updates at once and holds deletions until approved", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "prune", inlineConfigMap("a", "1"), inlineConfigMap("b", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalPrune
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("a", "2"), inlineConfigMap("c", "1")}
		})
		digest := awaiting(ctx, set)
		Expect(configMapExists(ctx, ns, "c")).To(BeTrue(), "a create waited for approval under Prune")
		Expect(dataOfA(ctx, ns)()).To(Equal("2"), "an update waited for approval under Prune")
		Expect(names(set.Status.Plan.Prune)).To(ConsistOf("ConfigMap b"))
		Expect(configMapExists(ctx, ns, "b")).To(BeTrue(), "a deletion was made without approval")
		Expect(memberNames(set.Status.Members)).To(ContainElement("ConfigMap b"), "a held deletion left the inventory")

		approve(ctx, set, digest)
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "b")).To(BeFalse())
		Expect(set.Status.Approval.LastApplied).To(Equal(digest))
	})

	It("holds every set of a namespace labelled for it to Manual", func(ctx context.Context) {
		ns := newNamespace(ctx)
		namespace := &corev1.Namespace{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: ns}, namespace)).To(Succeed())
		namespace.Labels[applyv1alpha1.ManualApprovalLabel] = string(applyv1alpha1.ApprovalManual)
		Expect(k8sClient.Update(ctx, namespace)).To(Succeed())
		set := newSet(ns, "auto", inlineConfigMap("a", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())

		awaiting(ctx, set)
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse(), "an Auto set went around its namespace's rule")
	})

	It("deletes the members of a deleted set only once the deletion is approved", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "doomed", inlineConfigMap("a", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		approve(ctx, set, awaiting(ctx, set))
		readyFor(ctx, set)

		Expect(k8sClient.Delete(ctx, set)).To(Succeed())
		digest := awaiting(ctx, set)
		Expect(names(set.Status.Plan.Prune)).To(ConsistOf("ConfigMap a"))
		Consistently(func() bool { return configMapExists(ctx, ns, "a") }).WithTimeout(2e9).Should(BeTrue(),
			"a member was deleted before the deletion was approved")

		approve(ctx, set, digest)
		Eventually(exists(ctx, set)).Should(BeFalse())
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse())
	})

	It("keeps the members of a deleted set under approval when its deletionPolicy turns to Orphan", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "kept", inlineConfigMap("a", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalPrune
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		Expect(k8sClient.Delete(ctx, set)).To(Succeed())
		awaiting(ctx, set)
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.DeletionPolicy = applyv1alpha1.DeletionPolicyOrphan })
		Eventually(exists(ctx, set)).Should(BeFalse())
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, cm)).To(Succeed())
		Expect(cm.Labels).NotTo(HaveKey("applyset.kubernetes.io/part-of"), "an orphaned member kept the set's label")
	})

	It("lets only those who may approve change spec.approvedPlan or spec.approval", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "duties", inlineConfigMap("a", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		digest := awaiting(ctx, set)
		author, approver := userIn(ctx, ns, "author", "update"), userIn(ctx, ns, "approver", "update", "approve")
		edit := func(c client.Client, change func(*applyv1alpha1.ApplySet)) error {
			latest := &applyv1alpha1.ApplySet{}
			Expect(c.Get(ctx, client.ObjectKeyFromObject(set), latest)).To(Succeed())
			change(latest)
			return c.Update(ctx, latest)
		}

		Expect(edit(author, func(s *applyv1alpha1.ApplySet) { s.Spec.ApprovedPlan = &digest })).
			To(MatchError(ContainSubstring("may not approve applysets")), "an author approved their own plan")
		Expect(edit(author, func(s *applyv1alpha1.ApplySet) { s.Spec.Approval = applyv1alpha1.ApprovalAuto })).
			To(MatchError(ContainSubstring("may not approve applysets")), "an author switched the set to Auto")
		Expect(edit(author, func(s *applyv1alpha1.ApplySet) { s.Spec.Interval = &metav1.Duration{Duration: 3e9} })).
			To(Succeed(), "an author may still edit the rest of the set")
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse())

		Eventually(func() error {
			return edit(approver, func(s *applyv1alpha1.ApplySet) { s.Spec.ApprovedPlan = ptr.To(awaiting(ctx, set)) })
		}).Should(Succeed())
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "a")).To(BeTrue())
	})

	It("keeps an author from escaping Manual by deleting a set that keeps its members and creating it again as Auto", func(ctx context.Context) {
		ns := newNamespace(ctx)
		author, approver := userIn(ctx, ns, "author", "update", "delete"), userIn(ctx, ns, "approver", "update", "delete", "approve")
		set := newSet(ns, "guarded", inlineConfigMap("a", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		set.Spec.DeletionPolicy = applyv1alpha1.DeletionPolicyOrphan
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		awaiting(ctx, set)

		Expect(author.Delete(ctx, set.DeepCopy())).To(MatchError(SatisfyAll(ContainSubstring("author may not approve applysets"),
			ContainSubstring("deletionPolicy Orphan, suspend or dryRun"))), "an author deleted a set that keeps its members")
		suspended := &applyv1alpha1.ApplySet{}
		Expect(author.Get(ctx, client.ObjectKeyFromObject(set), suspended)).To(Succeed())
		suspended.Spec.DeletionPolicy, suspended.Spec.Suspend = applyv1alpha1.DeletionPolicyDelete, ptr.To(true)
		Expect(author.Update(ctx, suspended)).To(Succeed(), "an author may still edit the set")
		Expect(author.Delete(ctx, set.DeepCopy())).To(MatchError(ContainSubstring("author may not approve applysets")),
			"an author deleted a suspended set, which keeps its members labelled for the next set of its name")

		By("letting an author delete a set whose deletion's plan waits for approval, and an approver any")
		deleting := newSet(ns, "deleting", inlineConfigMap("b", "1"))
		deleting.Spec.Approval = applyv1alpha1.ApprovalManual
		Expect(k8sClient.Create(ctx, deleting)).To(Succeed())
		Expect(author.Delete(ctx, deleting.DeepCopy())).To(Succeed())
		Expect(approver.Delete(ctx, set.DeepCopy())).To(Succeed())
		Eventually(exists(ctx, set)).Should(BeFalse())

		By("letting a namespace being deleted take its sets")
		kept := newSet(ns, "kept", inlineConfigMap("c", "1"))
		kept.Spec.Approval, kept.Spec.DeletionPolicy = applyv1alpha1.ApprovalManual, applyv1alpha1.DeletionPolicyOrphan
		Expect(k8sClient.Create(ctx, kept)).To(Succeed())
		Expect(k8sClient.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		Eventually(func() error { return author.Delete(ctx, kept.DeepCopy()) }).Should(Succeed())
	})

	It("holds sets under approval where the approval policy is not in force", Serial, func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "unguarded", inlineConfigMap("a", "1"))
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		set.Spec.ApprovedPlan = ptr.To("sha256:" + strings.Repeat("ab", 32))
		author := userIn(ctx, ns, "author")
		restore := withoutPolicy(ctx, approvalPolicy, func(ctx context.Context) error {
			return author.Create(ctx, set.DeepCopy(), client.DryRunAll)
		})
		Expect(k8sClient.Create(ctx, set)).To(Succeed())

		Eventually(readyReasonOf(ctx, set)).Should(Equal(applyv1alpha1.ReasonApprovalNotEnforced))
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse(), "a set under approval was applied without the policy")

		By("going on once the policy is back")
		restore(ctx)
		Eventually(readyReasonOf(ctx, set)).Should(Equal(applyv1alpha1.ReasonAwaitingApproval),
			"the written binding did not wake the held set")
	})
})

// refuseAppliedPlans installs, until the spec ends, a policy refusing every
// write of the status of ApplySets in ns that records a plan not a dry run.
func refuseAppliedPlans(ctx context.Context, ns string) {
	GinkgoHelper()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "refuse-applied-plans-" + ns},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{applyv1alpha1.GroupVersion.Group}, APIVersions: []string{"*"},
						Resources: []string{"applysets/status"}}}}},
			},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "!has(object.status.plan) || !has(object.status.plan.dryRun) || object.status.plan.dryRun",
				Message:    "the test refuses the status of an applied plan"}},
		}}
	Expect(k8sClient.Create(ctx, policy)).To(Succeed())
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: policy.Name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
	Expect(k8sClient.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, binding))).To(Succeed())
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, policy))).To(Succeed())
	})
	// The API server enforces a new policy within a second or so: wait until it refuses.
	probe := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "probe"}}
	Expect(k8sClient.Create(ctx, probe)).To(Succeed())
	Eventually(func() error {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(probe), probe)).To(Succeed())
		probe.Status.Plan = &applyv1alpha1.Plan{DryRun: ptr.To(false)}
		return k8sClient.Status().Update(ctx, probe, client.DryRunAll)
	}).Should(MatchError(ContainSubstring("the test refuses the status of an applied plan")))
}

// userIn returns a client acting as user, who may get, list, create and
// patch ApplySets in ns, and use the verbs given.
func userIn(ctx context.Context, ns, user string, verbs ...string) client.Client {
	GinkgoHelper()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{applyv1alpha1.GroupVersion.Group}, Resources: []string{"applysets"},
			Verbs: append([]string{"get", "list", "create", "patch"}, verbs...)}}}
	Expect(k8sClient.Create(ctx, role)).To(Succeed())
	Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}})).To(Succeed())
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: k8sClient.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// awaitingSinceMetric is the set's applyset_operator_approval_awaiting_since_seconds, 0 when absent.
func awaitingSinceMetric(ns, name string) float64 {
	GinkgoHelper()
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() != "applyset_operator_approval_awaiting_since_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["namespace"] == ns && labels["name"] == name {
				return m.GetGauge().GetValue()
			}
		}
	}
	return 0
}

// approvalWaits is how many approved plans' waits were observed.
func approvalWaits() uint64 {
	GinkgoHelper()
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	var n uint64
	for _, f := range families {
		if f.GetName() == "applyset_operator_approval_wait_seconds" {
			for _, m := range f.GetMetric() {
				n += m.GetHistogram().GetSampleCount()
			}
		}
	}
	return n
}

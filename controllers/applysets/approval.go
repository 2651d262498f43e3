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
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// approvalOutcome is what a reconcile under approval found.
type approvalOutcome struct {
	mode applyv1alpha1.Approval
	// digest names the plan that awaits approval, or that was applied.
	digest string
	// awaiting is true when the plan waits for a person: nothing it
	// approves was done.
	awaiting bool
	// spent is true when the reconcile applied an approved plan, and
	// recorded once status says so.
	spent, recorded bool
	// held are the deletes that wait for approval under Prune.
	held apply.ChangeSet
	// before is the digest status.plan named before the reconcile, and
	// waitingSince when that plan began to wait.
	before       string
	waitingSince *metav1.Time
}

// approvalMode is the approval the set is held to: its own, or Manual
// where its namespace, or its ServiceAccount's, carries the label that
// makes Manual the rule (a second set acting as the same account cannot
// go around it by saying Auto).
func (r *Reconciler) approvalMode(ctx context.Context, set applyv1alpha1.Set) (applyv1alpha1.Approval, error) {
	mode := set.GetCommonSpec().ApprovalMode()
	if mode == applyv1alpha1.ApprovalManual {
		return mode, nil
	}
	saNamespace, _ := set.GetServiceAccount()
	for _, name := range []string{set.GetNamespace(), saNamespace} {
		if name == "" {
			continue
		}
		ns := &metav1.PartialObjectMetadata{}
		ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
		if err := r.client.Get(ctx, client.ObjectKey{Name: name}, ns); client.IgnoreNotFound(err) != nil {
			return "", fmt.Errorf("reading Namespace %s for its approval rule: %w", name, err)
		}
		if ns.Labels[applyv1alpha1.ManualApprovalLabel] == string(applyv1alpha1.ApprovalManual) {
			return applyv1alpha1.ApprovalManual, nil
		}
	}
	return mode, nil
}

// approvalOf sets o.approval for a set held to Manual or Prune, once it
// knows that only approvers can approve: where the admission policy that
// says so is not in force, anyone who may edit the set could write an
// approval, and the set is held (an error). A preview needs no approval.
func (r *Reconciler) approvalOf(ctx context.Context, set applyv1alpha1.Set, o outcome) (outcome, error) {
	if o.dryRun {
		return o, nil
	}
	mode, err := r.approvalMode(ctx, set)
	if err != nil || mode == applyv1alpha1.ApprovalAuto {
		return o, err
	}
	if err := r.approvalEnforced(ctx, set); err != nil {
		return o, err
	}
	o.approval = &approvalOutcome{mode: mode, before: planDigest(set.GetSetStatus())}
	if a := set.GetSetStatus().Approval; a != nil {
		o.approval.waitingSince = a.AwaitingSince
	}
	return o, nil
}

// approvalEnforced is nil once only approvers can approve set's plans;
// a manager without a check of the policy trusts no approval.
func (r *Reconciler) approvalEnforced(ctx context.Context, set applyv1alpha1.Set) error {
	if r.enforced == nil {
		return errApprovalNotEnforced
	}
	return r.enforced(ctx, set)
}

// errApprovalNotEnforced holds sets under approval in a manager that does
// not check the approval policy.
var errApprovalNotEnforced = errors.New("the set asks for approval, but the admission policy that lets only approvers " +
	"approve is not in force, so anyone who may edit the set could approve its plans; install config/policy (applyset-approval)")

func planDigest(status *applyv1alpha1.ApplySetStatus) string {
	if status.Plan == nil {
		return ""
	}
	return status.Plan.Digest
}

// held are the deletes o holds for approval.
func held(o outcome) []apply.Change {
	if o.approval == nil {
		return nil
	}
	return o.approval.held.Changes
}

// setApproval records where the set stands with approvals: since when a
// plan waits, and each approval spent.
func setApproval(status *applyv1alpha1.ApplySetStatus, o outcome) {
	a := o.approval
	if a == nil {
		return // the history of approvals stays for a set switched to Auto
	}
	st := ptr.Deref(status.Approval, applyv1alpha1.ApprovalStatus{})
	switch {
	case a.awaiting && st.AwaitingSince == nil:
		st.AwaitingSince = &metav1.Time{Time: o.now}
	case a.awaiting, a.recorded:
	case a.spent:
		st.Sequence = ptr.To(ptr.Deref(st.Sequence, 0) + 1)
		st.LastApplied, st.LastAppliedTime, st.AwaitingSince = a.digest, &metav1.Time{Time: o.now}, nil
	default:
		st.AwaitingSince = nil
	}
	status.Approval = &st
}

// awaitingMessage says what waits for approval and how to give it.
func awaitingMessage(status *applyv1alpha1.ApplySetStatus, o outcome) string {
	how := "approve it with kubectl applyset approve, or set spec.approvedPlan to status.plan.digest"
	if o.approval.mode == applyv1alpha1.ApprovalPrune {
		return fmt.Sprintf("Applied; %d deletions await approval (plan %s): %s; %s",
			o.approval.held.Count(apply.Pruned), o.approval.digest, text.Summarize(prunedNames(o.approval.held), 5), how)
	}
	c := ptr.Deref(status.Plan.Counts, applyv1alpha1.PlanCounts{})
	return fmt.Sprintf("Plan %s awaits approval: %d to create, %d to update, %d to recreate, %d to prune; %s",
		o.approval.digest, count(c.Create), count(c.Update), count(c.Recreate), count(c.Prune), how)
}

func prunedNames(cs apply.ChangeSet) []string {
	var names []string
	for _, c := range cs.Changes {
		if c.Action == apply.Pruned {
			names = append(names, c.Ref.String())
		}
	}
	return names
}

// awaitingDeletion stops the deletion of a set under approval until a
// person approves what it deletes.
type awaitingDeletion struct {
	digest  string
	deletes apply.ChangeSet
}

func (a *awaitingDeletion) Error() string {
	return fmt.Sprintf("deleting the set deletes %d members, which waits for approval of plan %s; approve it, "+
		"or set spec.deletionPolicy to Orphan to keep them", a.deletes.Count(apply.Pruned), a.digest)
}

// approvedDeletion records that the set's deletion was approved: that
// approval covers every later pass of the same deletion (the inventory only
// shrinks while the set is deleted).
func (r *Reconciler) approvedDeletion(ctx context.Context, set applyv1alpha1.Set, digest string) {
	status := set.GetSetStatus()
	setApproval(status, outcome{now: r.now(), approval: &approvalOutcome{digest: digest, spent: true}})
	status.Approval.DeletionApproved = ptr.To(true)
	r.event(ctx, set, "Normal", ReasonApprovedPlanApplied, "Delete", "Deleting the members: approved plan %s", digest)
}

// markDeletionAwaiting shows the deletion's plan and says how to approve it.
func (r *Reconciler) markDeletionAwaiting(ctx context.Context, set applyv1alpha1.Set, waiting *awaitingDeletion) {
	status := set.GetSetStatus()
	before := planDigest(status)
	o := outcome{now: r.now(), dryRun: true, pruned: waiting.deletes,
		approval: &approvalOutcome{digest: waiting.digest, awaiting: true}}
	setPlan(status, o)
	setApproval(status, o)
	markAwaiting(status, set.GetGeneration(), waiting.Error())
	if before != waiting.digest {
		r.event(ctx, set, "Normal", applyv1alpha1.ReasonAwaitingApproval, "Delete", "%s", text.Truncate(waiting.Error(), maxEventMessage))
	}
}

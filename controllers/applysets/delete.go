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
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/requeue"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// ReasonMembersKept is the reason of the Event of a set deleted without touching its members.
const ReasonMembersKept = "MembersKept"

// reconcileDelete releases the members of a set being deleted, as its
// deletionPolicy says, then lets it go. Only members the set's inventory
// proves are deleted or released; a set that changes nothing (suspended or
// previewing), and every set while the operator is being uninstalled, leaves
// them all as they are.
func (r *Reconciler) reconcileDelete(ctx context.Context, rec *record) (reconcile.Result, error) {
	set := rec.set
	if !controllerutil.ContainsFinalizer(set, applyv1alpha1.MembersFinalizer) {
		return reconcile.Result{}, nil
	}
	why, err := r.keepsMembers(ctx, set)
	if err != nil {
		return r.deletionBlocked(set, err)
	}
	if why != "" {
		r.recorder.Eventf(set, nil, "Normal", ReasonMembersKept, "Delete", "%s", text.Truncate(
			fmt.Sprintf("Deleted without touching its %d members: %s", ptr.Deref(set.GetSetStatus().MemberCount, 0), why), maxEventMessage))
		return r.letGo(ctx, rec)
	}
	parent := applyset.ParseParent(r.parentKey(set), set.GetLabels(), set.GetAnnotations())
	if identity.ReleasesMembersOf(parent) {
		waiting, err := r.releaseMembers(ctx, rec, parent)
		if err == nil && waiting != "" {
			// Members go in reverse apply order, each group once the one
			// before it is gone: a namespace is not torn down under live workloads.
			markProgressing(set.GetSetStatus(), set.GetGeneration(), applyv1alpha1.ReasonDeleting, "Deleting the members: "+waiting,
				"Deleting the members: "+waiting, false)
			return reconcile.Result{RequeueAfter: requeue.Jitter(waitDelay(0))}, nil
		}
		var waitingForApproval *awaitingDeletion
		if errors.As(err, &waitingForApproval) {
			r.markDeletionAwaiting(set, waitingForApproval)
			return reconcile.Result{}, nil // approving changes the spec, which wakes the set
		}
		if err != nil {
			if !r.namespaceTerminating(ctx, set) {
				return r.deletionBlocked(set, err)
			}
			// The namespace is going, and with it the set's ServiceAccount and
			// its RoleBindings: what lives in the namespace goes too, and
			// waiting would hold the namespace forever.
			r.recorder.Eventf(set, nil, "Warning", applyv1alpha1.ReasonDeletionBlocked, "Delete", "%s", text.Truncate(
				"The namespace is being deleted; members outside it may be left: "+err.Error(), maxEventMessage))
		}
	}
	return r.letGo(ctx, rec)
}

// keepsMembers says why deleting the set must leave every member as it is,
// or "" when its deletionPolicy decides.
func (r *Reconciler) keepsMembers(ctx context.Context, set applyv1alpha1.Set) (string, error) {
	if why := declared.KeepsMembers(set); why != "" {
		return why, nil
	}
	going, err := r.uninstalling(ctx)
	if err != nil {
		return "", fmt.Errorf("cannot tell whether the operator is being uninstalled, so no member is touched: %w", err)
	}
	if going {
		return errUninstalling.Error(), nil
	}
	return "", nil
}

// deletionBlocked keeps the set, and its finalizer, and says why.
func (r *Reconciler) deletionBlocked(set applyv1alpha1.Set, err error) (reconcile.Result, error) {
	setCondition(set.GetSetStatus(), set.GetGeneration(), applyv1alpha1.ConditionReady, metav1.ConditionFalse,
		applyv1alpha1.ReasonDeletionBlocked, "Releasing the members before deletion failed: "+err.Error())
	r.recorder.Eventf(set, nil, "Warning", applyv1alpha1.ReasonDeletionBlocked, "Delete", "%s", text.Truncate(err.Error(), maxEventMessage))
	return reconcile.Result{}, err
}

// letGo removes the finalizer: the set goes.
func (r *Reconciler) letGo(ctx context.Context, rec *record) (reconcile.Result, error) {
	if err := r.deleteChunks(ctx, rec.set); err != nil {
		return reconcile.Result{}, err
	}
	if err := rec.removeFinalizer(ctx); err != nil {
		return reconcile.Result{}, err
	}
	forgetMetrics(r.groupKind.Kind, rec.set)
	return reconcile.Result{}, nil
}

// releaseMembers deletes (deletionPolicy Delete) or disbands (Orphan) the
// members the inventory proves, as one run of the set (setrun.Delete): the
// same code previews the deletion in the plugin. It returns what the
// deletion still waits for; an *awaitingDeletion while its plan awaits
// approval.
func (r *Reconciler) releaseMembers(ctx context.Context, rec *record, parent applyset.Parent) (string, error) {
	set := rec.set
	act, err := r.actorOf(set)
	if err != nil {
		return "", err
	}
	engine, _, err := r.engine(ctx, act)
	if err != nil {
		return "", err
	}
	mode, err := r.approvalMode(ctx, set)
	if err != nil {
		return "", err
	}
	if mode != applyv1alpha1.ApprovalAuto {
		if err := r.approvalEnforced(ctx, set); err != nil {
			return "", err
		}
	}
	members, _, err := rec.load(ctx)
	if err != nil {
		return "", err
	}
	run := &setrun.Run{Mode: setrun.Delete, Set: set, Stored: set.GetSetStatus(), Members: members, Parent: parent, Engine: engine, Approval: mode,
		Identity: act.String(), Writes: &setWrites{rec: rec}}
	res := run.Do(ctx)
	if a := res.Approval; a != nil && a.Awaiting {
		return "", &awaitingDeletion{digest: a.Digest, deletes: a.Held}
	}
	if a := res.Approval; a != nil && a.Spent {
		r.approvedDeletion(set, a.Digest)
	}
	if res.Err != nil {
		return "", res.Err
	}
	cs := res.Pruned
	r.recordRelease(set, cs)
	if waiting := waitingDeletes(cs); waiting != "" {
		return waiting, nil
	}
	if n := cs.Count(apply.Pruned); n > 0 {
		// Look again: the set goes once no member is left, finalizers and all.
		return fmt.Sprintf("waiting for the %d members just deleted to be gone", n), nil
	}
	return "", nil
}

// recordRelease says what the deletion did to the members, and what it left.
func (r *Reconciler) recordRelease(set applyv1alpha1.Set, cs apply.ChangeSet) {
	msg := fmt.Sprintf("%d members pruned, %d disbanded", cs.Count(apply.Pruned), cs.Count(apply.Disbanded))
	if skipped := skippedPrunes(cs); skipped != "" {
		msg += "; kept " + skipped
	}
	if n := cs.Count(apply.Foreign); n > 0 {
		msg += fmt.Sprintf("; left alone %d objects that carry the set's label but that it did not apply", n)
	}
	if cs.Count(apply.Pruned)+cs.Count(apply.Disbanded)+cs.Count(apply.Skipped)+cs.Count(apply.Foreign) > 0 {
		r.recorder.Eventf(set, nil, "Normal", ReasonReleased, "Delete", "%s", text.Truncate(msg, maxEventMessage))
	}
}

// namespaceTerminating reports whether the set's own namespace is being deleted.
func (r *Reconciler) namespaceTerminating(ctx context.Context, set applyv1alpha1.Set) bool {
	if set.GetNamespace() == "" {
		return false
	}
	ns := &corev1.Namespace{}
	err := r.reader.Get(ctx, client.ObjectKey{Name: set.GetNamespace()}, ns)
	return err == nil && !ns.DeletionTimestamp.IsZero()
}

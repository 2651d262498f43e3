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
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// ReasonMembersKept is the reason of the Event of a set deleted without touching its members.
const ReasonMembersKept = "MembersKept"

// reconcileDelete releases the members of a set being deleted, as its
// deletionPolicy says, then lets it go: a list of phases over the scope
// apply's phases run on, then one place that decides what the deletion
// leads to (afterDeletion). Only members the set's inventory proves are
// deleted or released; a set that changes nothing (suspended or
// previewing), and every set while the operator is being uninstalled,
// leaves them all as they are.
func (r *Reconciler) reconcileDelete(ctx context.Context, rec *record) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(rec.set, applyv1alpha1.MembersFinalizer) {
		return reconcile.Result{}, nil
	}
	s := r.newScope(rec)
	phases := []phase{r.keepPhase, releasesPhase, r.actorPhase, r.enginePhase, r.approvalPhase, r.releasePhase}
	for _, p := range phases {
		if !p(ctx, s) {
			break
		}
	}
	return r.afterDeletion(ctx, s)
}

// deletion is what the phases of a deletion found.
type deletion struct {
	// kept says why every member stays as it is; unsure that it could not
	// be told whether they must.
	kept   string
	unsure error
	// waiting names what the deletion still waits for; awaiting is its
	// plan while that waits for approval.
	waiting  string
	awaiting *awaitingDeletion
}

// afterDeletion lets the set go, or says why it stays: it waits for its
// members to go or for an approval, or releasing them failed.
func (r *Reconciler) afterDeletion(ctx context.Context, s *scope) (reconcile.Result, error) {
	set, d := s.set, s.del
	switch {
	case d.unsure != nil:
		return r.deletionBlocked(ctx, set, d.unsure)
	case d.kept != "":
		r.event(ctx, set, "Normal", ReasonMembersKept, "Delete", "%s", text.Truncate(
			fmt.Sprintf("Deleted without touching its %d members: %s", ptr.Deref(set.GetSetStatus().MemberCount, 0), d.kept), maxEventMessage))
	case d.awaiting != nil:
		r.markDeletionAwaiting(ctx, set, d.awaiting)
		return reconcile.Result{}, nil // approving changes the spec, which wakes the set
	case s.o.err != nil && !r.namespaceTerminating(ctx, set):
		return r.deletionBlocked(ctx, set, s.o.err)
	case s.o.err != nil:
		// The namespace is going, and with it the set's ServiceAccount and
		// its RoleBindings: what lives in the namespace goes too, and
		// waiting would hold the namespace forever.
		r.event(ctx, set, "Warning", applyv1alpha1.ReasonDeletionBlocked, "Delete", "%s", text.Truncate(
			"The namespace is being deleted; members outside it may be left: "+s.o.err.Error(), maxEventMessage))
	case d.waiting != "":
		// Members go in reverse apply order, each group once the one before
		// it is gone: a namespace is not torn down under live workloads.
		markProgressing(set.GetSetStatus(), set.GetGeneration(), applyv1alpha1.ReasonDeleting, "Deleting the members: "+d.waiting,
			"Deleting the members: "+d.waiting, false)
		return reconcile.Result{RequeueAfter: requeue.Jitter(waitDelay(waitedAs(set, applyv1alpha1.ReasonDeleting, r.clock.Now())))}, nil
	}
	return r.letGo(ctx, s.rec)
}

// keepPhase stops a deletion that must leave every member as it is.
func (r *Reconciler) keepPhase(ctx context.Context, s *scope) bool {
	s.del.kept, s.del.unsure = r.keepsMembers(ctx, s.set)
	return s.del.kept == "" && s.del.unsure == nil
}

// releasesPhase stops the deletion of a set whose labels are not the
// operator's: it never labelled a member.
func releasesPhase(_ context.Context, s *scope) bool {
	return identity.ReleasesMembersOf(s.parent)
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
func (r *Reconciler) deletionBlocked(ctx context.Context, set applyv1alpha1.Set, err error) (reconcile.Result, error) {
	setCondition(set.GetSetStatus(), set.GetGeneration(), applyv1alpha1.ConditionReady, metav1.ConditionFalse,
		applyv1alpha1.ReasonDeletionBlocked, "Releasing the members before deletion failed: "+err.Error())
	r.event(ctx, set, "Warning", applyv1alpha1.ReasonDeletionBlocked, "Delete", "%s", text.Truncate(err.Error(), maxEventMessage))
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

// releasePhase deletes (deletionPolicy Delete) or disbands (Orphan) the
// members the inventory proves, as one run of the set (setrun.Delete): the
// same code previews the deletion in the plugin. It records what the
// deletion still waits for, or the plan that awaits approval.
func (r *Reconciler) releasePhase(ctx context.Context, s *scope) bool {
	members, _, err := s.rec.load(ctx)
	if err != nil {
		return s.stop(applyv1alpha1.ReasonDeletionBlocked, false, err)
	}
	run := &setrun.Run{Mode: setrun.Delete, Set: s.set, Stored: s.set.GetSetStatus(), Members: members, Parent: s.parent,
		Engine: s.engine, Approval: s.o.approvalMode(), Identity: s.act.String(), Writes: &setWrites{rec: s.rec}}
	res := run.Do(ctx)
	if a := res.Approval; a != nil && a.Awaiting {
		s.del.awaiting = &awaitingDeletion{digest: a.Digest, deletes: a.Held}
		return false
	}
	if a := res.Approval; a != nil && a.Spent {
		r.approvedDeletion(ctx, s.set, a.Digest)
	}
	if res.Err != nil {
		return s.stop(applyv1alpha1.ReasonDeletionBlocked, false, res.Err)
	}
	r.recordRelease(ctx, s.set, res.Pruned)
	s.del.waiting = waitingDeletes(res.Pruned)
	if n := res.Pruned.Count(apply.Pruned); s.del.waiting == "" && n > 0 {
		// Look again: the set goes once no member is left, finalizers and all.
		s.del.waiting = fmt.Sprintf("waiting for the %d members just deleted to be gone", n)
	}
	return true
}

// recordRelease says what the deletion did to the members, and what it left.
func (r *Reconciler) recordRelease(ctx context.Context, set applyv1alpha1.Set, cs apply.ChangeSet) {
	msg := fmt.Sprintf("%d members pruned, %d disbanded", cs.Count(apply.Pruned), cs.Count(apply.Disbanded))
	if skipped := skippedPrunes(cs); skipped != "" {
		msg += "; kept " + skipped
	}
	if n := cs.Count(apply.Foreign); n > 0 {
		msg += fmt.Sprintf("; left alone %d objects that carry the set's label but that it did not apply", n)
	}
	if cs.Count(apply.Pruned)+cs.Count(apply.Disbanded)+cs.Count(apply.Skipped)+cs.Count(apply.Foreign) > 0 {
		r.event(ctx, set, "Normal", ReasonReleased, "Delete", "%s", text.Truncate(msg, maxEventMessage))
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

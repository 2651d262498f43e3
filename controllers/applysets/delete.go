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
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/requeue"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/declared"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// reconcileDelete prunes every member (Delete) or disbands the set (Orphan),
// then lets the set go.
func (r *Reconciler) reconcileDelete(ctx context.Context, set applyv1alpha1.Set) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(set, applyv1alpha1.MembersFinalizer) {
		return reconcile.Result{}, nil
	}
	parent := applyset.ParseParent(r.parentKey(set), set.GetLabels(), set.GetAnnotations())
	if parent.Trusted() && (identity.Owns(parent.Tooling) || parent.Tooling.Name == "") {
		waiting, err := r.releaseMembers(ctx, set, parent)
		if err == nil && waiting != "" {
			// Members go in reverse apply order, each group once the one
			// before it is gone: a namespace is not torn down under live workloads.
			markProgressing(set.GetSetStatus(), set.GetGeneration(), applyv1alpha1.ReasonDeleting, "Deleting the members: "+waiting,
				"Deleting the members: "+waiting, false)
			return reconcile.Result{RequeueAfter: requeue.Jitter(waitDelay(0))}, nil
		}
		if err != nil {
			if !r.namespaceTerminating(ctx, set) {
				setCondition(set.GetSetStatus(), set.GetGeneration(), applyv1alpha1.ConditionReady, metav1.ConditionFalse,
					applyv1alpha1.ReasonDeletionBlocked, "Releasing the members before deletion failed: "+err.Error())
				r.Recorder.Eventf(set, nil, "Warning", applyv1alpha1.ReasonDeletionBlocked, "Delete", "%s", text.Truncate(err.Error(), maxEventMessage))
				return reconcile.Result{}, err
			}
			// The namespace is going, and with it the set's ServiceAccount and
			// its RoleBindings: what lives in the namespace goes too, and
			// waiting would hold the namespace forever.
			r.Recorder.Eventf(set, nil, "Warning", applyv1alpha1.ReasonDeletionBlocked, "Delete", "%s", text.Truncate(
				"The namespace is being deleted; members outside it may be left: "+err.Error(), maxEventMessage))
		}
	}
	base := set.DeepCopyObject().(client.Object)
	controllerutil.RemoveFinalizer(set, applyv1alpha1.MembersFinalizer)
	if err := r.Client.Patch(ctx, set, client.MergeFrom(base)); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	return reconcile.Result{}, nil
}

// releaseMembers deletes every member, or with deletionPolicy Orphan removes
// their part-of label, leaving them in place. Members are found by their label
// across the kinds and namespaces of the parent's hints, whether or not the
// set still declares them or its sources still exist, and are released as the
// set's identity.
func (r *Reconciler) releaseMembers(ctx context.Context, set applyv1alpha1.Set, parent applyset.Parent) (string, error) {
	act, err := r.actorOf(set)
	if err != nil {
		return "", err
	}
	engine, _, err := r.engine(ctx, act)
	if err != nil {
		return "", err
	}
	var cs apply.ChangeSet
	if set.GetCommonSpec().DeletionPolicy == applyv1alpha1.DeletionPolicyOrphan {
		cs, err = engine.Disband(ctx, apply.DisbandOptions{SetID: parent.ID, Scope: parent.Scope, Kinds: declared.CurrentKinds(parent)})
	} else {
		cs, err = engine.Prune(ctx, apply.PruneOptions{
			SetID: parent.ID, ParentUID: string(set.GetUID()), Scope: parent.Scope, Kinds: declared.CurrentKinds(parent),
			Keep: sets.New[apply.ObjectRef](),
		})
	}
	if err != nil {
		return "", actorError(act, err)
	}
	released := cs.Count(apply.Pruned) + cs.Count(apply.Disbanded)
	msg := fmt.Sprintf("%d members pruned, %d disbanded", cs.Count(apply.Pruned), cs.Count(apply.Disbanded))
	if skipped := skippedPrunes(cs); skipped != "" {
		msg += "; kept " + skipped
	}
	if released > 0 || cs.Count(apply.Skipped) > 0 {
		r.Recorder.Eventf(set, nil, "Normal", ReasonReleased, "Delete", "%s", text.Truncate(msg, maxEventMessage))
	}
	if waiting := waitingDeletes(cs); waiting != "" {
		return waiting, nil
	}
	if n := cs.Count(apply.Pruned); n > 0 {
		// Look again: the set goes once no member is left, finalizers and all.
		return fmt.Sprintf("waiting for the %d members just deleted to be gone", n), nil
	}
	return "", nil
}

// namespaceTerminating reports whether the set's namespace is being deleted.
func (r *Reconciler) namespaceTerminating(ctx context.Context, set applyv1alpha1.Set) bool {
	if set.GetNamespace() == "" {
		return false
	}
	ns := &corev1.Namespace{}
	err := r.Reader.Get(ctx, client.ObjectKey{Name: set.GetNamespace()}, ns)
	return err == nil && !ns.DeletionTimestamp.IsZero()
}

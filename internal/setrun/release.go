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

package setrun

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// release releases the members of a set being deleted, as its
// deletionPolicy says: deletes them (Delete) or disbands them (Orphan),
// each only while the inventory proves it a member, found by the set's label
// in the kinds and namespaces of its hints and its inventory; whatever else
// carries the label is left alone. Members the prune keeps (owned by
// another object, a CRD or Namespace others' objects live in) are released
// instead, so that no label points at a set that is gone. A set that
// changes nothing (suspended, previewing) keeps them all, and so does one
// whose parent contract is another tool's. Under approval, the deletion
// deletes once its plan is approved.
func (r *Run) release(ctx context.Context) (res Result) {
	res.DryRun = r.Mode.previews()
	if res.Kept = declared.KeepsMembers(r.Set); res.Kept != "" {
		return res
	}
	if !identity.ReleasesMembersOf(r.Parent) {
		res.Kept = "its ApplySet labels are not the operator's"
		return res
	}
	inv := r.inventory()
	proof := inv.Proof(identity.MembersFieldManager)
	prune, disband := declared.Release(r.Set, r.Parent, inv.Refs(), proof)
	var err error
	if disband != nil {
		disband.DryRun = res.DryRun
		if res.Pruned, err = r.Engine.Disband(ctx, *disband); err != nil {
			return r.failed(res, applyv1alpha1.ReasonDeletionBlocked, false, err)
		}
		return res
	}
	prune.DryRun, prune.Cascade = res.DryRun, inv.Cascade
	if r.Writes != nil {
		prune.BeforeDelete = r.Writes.BeforeDelete
	}
	plan, err := r.Engine.PlanPrune(ctx, *prune)
	if err != nil {
		return r.failed(res, applyv1alpha1.ReasonDeletionBlocked, false, err)
	}
	res.Deletes = plan.Deletes()
	if res = r.gateDeletion(res, plan); res.Approval != nil && res.Approval.Awaiting {
		return res
	}
	if res.Pruned, err = r.Engine.ExecutePrune(ctx, plan); err != nil {
		return r.failed(res, applyv1alpha1.ReasonDeletionBlocked, false, err)
	}
	if res.Pruned.Count(apply.Waiting) > 0 || res.Pruned.Count(apply.Skipped) == 0 {
		return res
	}
	// What the prune kept is released, so no label points at a set that is gone.
	released, err := r.Engine.Disband(ctx, apply.DisbandOptions{SetID: prune.SetID, Scope: prune.Scope, Kinds: prune.Kinds,
		Proven: only(skipped(res.Pruned), proof), DryRun: res.DryRun})
	res.Pruned.Changes = append(res.Pruned.Changes, released.Changes...)
	if err != nil {
		return r.failed(res, applyv1alpha1.ReasonDeletionBlocked, false, err)
	}
	return res
}

// gateDeletion decides, for a set held to approval, whether its deletion
// may delete what plan deletes: once its digest is approved, that approval
// covers every later pass of the same deletion (the inventory only shrinks
// while the set is deleted). A preview shows the plan and its digest.
func (r *Run) gateDeletion(res Result, plan *apply.PrunePlan) Result {
	deletes := plan.Deletes()
	if r.Approval == "" || r.Approval == applyv1alpha1.ApprovalAuto || r.deletionApproved() || len(deletes) == 0 {
		return res
	}
	res.Approval = &Approval{Mode: r.Approval,
		Digest: declared.PlanDigest(r.Set, declared.Approvable{What: declared.ApproveDeletion, Deletes: deletes})}
	if r.approved(res.Approval.Digest) {
		res.Approval.Spent = true
		return res
	}
	res.Approval.Awaiting, res.Approval.Held = true, plan.Preview()
	return res
}

// deletionApproved is true once the set's deletion was approved: the
// inventory only shrinks while the set is deleted, so that approval covers
// every later pass.
func (r *Run) deletionApproved() bool {
	a := ptr.Deref(r.Stored, applyv1alpha1.ApplySetStatus{}).Approval
	return a != nil && ptr.Deref(a.DeletionApproved, false) && !r.Set.GetDeletionTimestamp().IsZero()
}

// skipped are the members a prune kept.
func skipped(cs apply.ChangeSet) sets.Set[apply.ObjectRef] {
	out := sets.New[apply.ObjectRef]()
	for _, c := range cs.Changes {
		if c.Action == apply.Skipped {
			out.Insert(c.Ref)
		}
	}
	return out
}

// only narrows proof to refs.
func only(refs sets.Set[apply.ObjectRef], proof apply.Proof) apply.Proof {
	return func(ref apply.ObjectRef, obj *metav1.PartialObjectMetadata) bool {
		return refs.Has(ref) && proof(ref, obj)
	}
}

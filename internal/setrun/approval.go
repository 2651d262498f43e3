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
	"errors"

	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// approved reports whether the set's spec.approvedPlan names digest.
func (r *Run) approved(digest string) bool {
	return ptr.Deref(r.Set.GetCommonSpec().ApprovedPlan, "") == digest
}

// held tells whether the set is held to approval mode.
func (r *Run) held(mode applyv1alpha1.Approval) bool { return r.Approval == mode }

// gateChanges decides, under Manual, what the apply may write: it previews
// the apply, names its plan by digest and, unless spec.approvedPlan names
// that digest, reports the preview as awaiting approval (true). An
// approved plan is applied exactly: applyOpts.Only holds its writes, and
// the prune plan made before it is the one executed. A preview that fails
// stops the set as the apply would (true).
func (r *Run) gateChanges(ctx context.Context, res Result, applyOpts *apply.ApplyOptions, prune *apply.PrunePlan) (Result, bool) {
	if !r.held(applyv1alpha1.ApprovalManual) || r.Mode.previews() || res.DryRun {
		return res, false
	}
	preview := *applyOpts
	preview.DryRun, preview.Ready = true, nil
	previewed, err := r.Engine.Apply(ctx, res.Objects, preview)
	if err != nil {
		res.Applied, res.DryRun = previewed, true
		return r.failed(res, applyv1alpha1.ReasonApplyFailed, errors.Is(err, apply.ErrOverlap), err), true
	}
	what := declared.Approvable{What: declared.ApproveChanges, Writes: previewed.Intent}
	if prune != nil {
		what.Deletes = prune.Deletes()
	}
	applyOpts.Only = previewed.Intent
	if what.Empty() {
		return res, false // nothing to approve; nothing is written should that change meanwhile
	}
	res.Approval = &Approval{Mode: applyv1alpha1.ApprovalManual, Digest: declared.PlanDigest(r.Set, what)}
	if r.approved(res.Approval.Digest) {
		res.Approval.Spent = true
		return res, false
	}
	res.Approval.Awaiting, res.DryRun = true, true
	res.Applied = previewed
	if prune != nil {
		res.Pruned = prune.Preview()
	}
	return res, true
}

// gateDeletes decides, under Prune, whether the prune may run: a prune that
// deletes something waits (true) until spec.approvedPlan names its digest.
func (r *Run) gateDeletes(res Result, prune *apply.PrunePlan) (Result, bool) {
	if !r.held(applyv1alpha1.ApprovalPrune) || r.Mode.previews() || res.DryRun {
		return res, false
	}
	deletes := prune.Deletes()
	if len(deletes) == 0 {
		return res, false
	}
	res.Approval = &Approval{Mode: applyv1alpha1.ApprovalPrune,
		Digest: declared.PlanDigest(r.Set, declared.Approvable{What: declared.ApproveDeletes, Deletes: deletes})}
	if r.approved(res.Approval.Digest) {
		res.Approval.Spent = true
		return res, false
	}
	res.Approval.Awaiting, res.Approval.Held = true, prune.Preview()
	return res, true
}

// previewed names, in a preview, the plan the set's approval would wait
// for: the digest the operator computes of the same requests and deletes.
func (r *Run) previewed(res Result) Result {
	what := declared.Approvable{What: declared.ApproveChanges, Writes: res.Applied.Intent, Deletes: res.Deletes}
	switch {
	case r.held(applyv1alpha1.ApprovalPrune):
		what = declared.Approvable{What: declared.ApproveDeletes, Deletes: res.Deletes}
	case !r.held(applyv1alpha1.ApprovalManual):
		return res
	}
	if what.Empty() {
		return res
	}
	res.Approval = &Approval{Mode: r.Approval, Digest: declared.PlanDigest(r.Set, what)}
	res.Approval.Awaiting = !r.approved(res.Approval.Digest)
	return res
}

// spend records an approval the run spends before the writes it allows:
// the sequence, which every digest includes, moves on at once, so that
// however the run ends no later plan has the digest approved.
func (r *Run) spend(ctx context.Context, res Result) error {
	a := res.Approval
	if a == nil || !a.Spent || a.Recorded || r.Writes == nil {
		return nil
	}
	if err := r.Writes.SpendApproval(ctx, a); err != nil {
		return err
	}
	a.Recorded = true
	return nil
}

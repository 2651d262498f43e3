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

// gateChanges decides, under Manual or while the set's windows hold it,
// what the apply may write: it previews the apply and names its plan by
// digest. Unless spec.approvedPlan names that digest (under Manual), and
// the window override names it (while held), it reports the preview as
// waiting (true). A plan let through is applied exactly: applyOpts.Only
// holds its writes, and the prune plan made before it is the one executed.
// A preview that fails stops the set as the apply would (true).
func (r *Run) gateChanges(ctx context.Context, res Result, applyOpts *apply.ApplyOptions, prune *apply.PrunePlan) (Result, bool) {
	manual := r.held(applyv1alpha1.ApprovalManual)
	if (!manual && r.Window == nil) || r.Mode.previews() || res.DryRun {
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
	digest := ""
	if !what.Empty() { // nothing to approve; nothing is written should that change meanwhile
		digest = declared.PlanDigest(r.Set, what)
	}
	res = r.gateWindow(r.gateApproval(res, manual, digest), digest)
	awaiting := res.Approval != nil && res.Approval.Awaiting
	if !awaiting && (res.Window == nil || !res.Window.Held) {
		return res, false
	}
	res.DryRun, res.Applied = true, previewed
	if prune != nil {
		res.Pruned = prune.Preview()
	}
	return res, true
}

// gateApproval is where a plan of digest stands under Manual.
func (r *Run) gateApproval(res Result, manual bool, digest string) Result {
	if !manual || digest == "" {
		return res
	}
	res.Approval = &Approval{Mode: applyv1alpha1.ApprovalManual, Digest: digest}
	res.Approval.Spent = r.approved(digest)
	res.Approval.Awaiting = !res.Approval.Spent
	return res
}

// gateWindow is where a plan of digest stands with the windows that hold
// the set: held, unless the override names it. An approval waits, unspent,
// while the windows hold its plan.
func (r *Run) gateWindow(res Result, digest string) Result {
	if r.Window == nil {
		return res
	}
	overridden := digest != "" && r.Window.Override == digest
	res.Window = &WindowGate{Digest: digest, Overridden: overridden, Held: !overridden}
	if a := res.Approval; a != nil && !overridden {
		a.Spent = false
	}
	return res
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

// spend records an approval, or a window override, the run spends before
// the writes it allows: the sequence, which every digest includes, moves
// on at once, so that however the run ends no later plan has the digest
// approved or let through.
func (r *Run) spend(ctx context.Context, res Result) error {
	a, w := res.Approval, res.Window
	s := Spending{Approval: a != nil && a.Spent && !a.Recorded, Override: w != nil && w.Overridden && !w.Recorded}
	if (!s.Approval && !s.Override) || r.Writes == nil {
		return nil
	}
	if s.Approval {
		s.Digest, s.Mode = a.Digest, a.Mode
	}
	if s.Override {
		s.Digest = w.Digest
	}
	if err := r.Writes.Spend(ctx, s); err != nil {
		return err
	}
	if s.Approval {
		a.Recorded = true
	}
	if s.Override {
		w.Recorded = true
	}
	return nil
}

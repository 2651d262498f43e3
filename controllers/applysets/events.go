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
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// Reasons of Events only; the condition reasons, which Events carry too,
// are the API's (applyv1alpha1.Reason*).
const (
	ReasonApplied         = "Applied"
	ReasonDriftCorrected  = "DriftCorrected"
	ReasonOwnershipForced = "OwnershipForced"
	ReasonReleased        = "MembersReleased"
	// ReasonInputWarning: inputs were taken with a part left out, as
	// kubectl leaves it out; status.warnings names them.
	ReasonInputWarning = "InputWarning"
	// ReasonOwnershipHandedOver: the set took over objects written by
	// client-side apply (--legacy-field-managers).
	ReasonOwnershipHandedOver = "OwnershipHandedOver"
	// ReasonApprovedPlanApplied: a plan a person approved was applied, and
	// the approval spent.
	ReasonApprovedPlanApplied = "ApprovedPlanApplied"
	// ReasonArtifactChanged: an oci source was read from another artifact
	// than at the last reconcile; the Event names both digests.
	ReasonArtifactChanged = "ArtifactChanged"
)

func (r *Reconciler) recordOutcome(set applyv1alpha1.Set, before *metav1.Condition, o outcome) {
	r.recordApproval(set, o)
	for _, change := range o.artifactChanges {
		r.recorder.Eventf(set, nil, "Normal", ReasonArtifactChanged, "Apply", "%s", text.Truncate("Applying "+change, maxEventMessage))
	}
	if o.err != nil {
		r.recorder.Eventf(set, nil, "Warning", o.reason, "Apply", "%s", text.Truncate(o.err.Error(), maxEventMessage))
		return
	}
	if o.dryRun {
		return // a preview changes nothing; status.plan tells the rest
	}
	for _, c := range o.applied.Drift {
		r.recorder.Eventf(set, nil, "Warning", ReasonDriftCorrected, "Apply", "%s",
			text.Truncate(fmt.Sprintf("%s: put back %s, changed by %s; list them in spec.ignoreFields to leave them to it",
				c.Ref, text.Summarize(c.Fields, maxEventFields), c.Manager), maxEventMessage))
	}
	for _, c := range o.applied.Forced {
		r.recorder.Eventf(set, nil, "Normal", ReasonOwnershipForced, "Apply", "%s",
			text.Truncate(fmt.Sprintf("%s: took %s from %s (spec.force)", c.Ref, text.Summarize(c.Fields, maxEventFields), c.Manager), maxEventMessage))
	}
	if handed := handedOver(o.applied); handed != "" {
		r.recorder.Eventf(set, nil, "Normal", ReasonOwnershipHandedOver, "Apply", "%s", text.Truncate(
			"Took over the ownership of client-side applies, so the set owns exactly what it declares: "+handed, maxEventMessage))
	}
	if skipped := skippedPrunes(o.pruned); skipped != "" {
		r.recorder.Eventf(set, nil, "Warning", applyv1alpha1.ReasonPruneSkipped, "Prune", "%s", text.Truncate("Kept "+skipped, maxEventMessage))
	}
	if n := o.applied.Count(apply.Created) + o.applied.Count(apply.Configured) + o.pruned.Count(apply.Pruned); n > 0 {
		r.recorder.Eventf(set, nil, "Normal", ReasonApplied, "Apply", "%d created, %d configured, %d pruned",
			o.applied.Count(apply.Created), o.applied.Count(apply.Configured), o.pruned.Count(apply.Pruned))
	}
	r.recordHealthTransition(set, before, readyOf(set.GetSetStatus()))
}

// recordApproval tells, once per plan, that a plan awaits approval, and
// that an approved plan was applied.
func (r *Reconciler) recordApproval(set applyv1alpha1.Set, o outcome) {
	a := o.approval
	switch {
	case a == nil:
	case a.awaiting && a.digest != a.before:
		r.recorder.Eventf(set, nil, "Normal", applyv1alpha1.ReasonAwaitingApproval, "Plan", "%s",
			text.Truncate(readyOf(set.GetSetStatus()).Message, maxEventMessage))
	case a.spent:
		r.recorder.Eventf(set, nil, "Normal", ReasonApprovedPlanApplied, "Apply", "Applied the approved plan %s (approval %d)",
			a.digest, ptr.Deref(set.GetSetStatus().Approval.Sequence, 0))
	}
}

// recordWarnings tells, once, of inputs taken with a part left out.
func (r *Reconciler) recordWarnings(set applyv1alpha1.Set, before []string) {
	now := set.GetSetStatus().Warnings
	if len(now) == 0 || slices.Equal(before, now) {
		return
	}
	r.recorder.Eventf(set, nil, "Warning", ReasonInputWarning, "Apply", "%s",
		text.Truncate("Took inputs with a part left out: "+strings.Join(now, "; "), maxEventMessage))
}

// recordHealthTransition tells, once, when a set starts waiting for its
// members, when the wait fails, and when it ends well.
func (r *Reconciler) recordHealthTransition(set applyv1alpha1.Set, before, after *metav1.Condition) {
	if after == nil || (before != nil && before.Reason == after.Reason) {
		return
	}
	switch {
	case after.Reason == applyv1alpha1.ReasonProgressing:
		r.recorder.Eventf(set, nil, "Normal", applyv1alpha1.ReasonProgressing, "Wait", "%s", text.Truncate(after.Message, maxEventMessage))
	case after.Reason == applyv1alpha1.ReasonHealthCheckFailed:
		r.recorder.Eventf(set, nil, "Warning", applyv1alpha1.ReasonHealthCheckFailed, "Wait", "%s", text.Truncate(after.Message, maxEventMessage))
	case after.Status == metav1.ConditionTrue && before != nil &&
		(before.Reason == applyv1alpha1.ReasonProgressing || before.Reason == applyv1alpha1.ReasonHealthCheckFailed):
		r.recorder.Eventf(set, nil, "Normal", applyv1alpha1.ReasonSucceeded, "Wait", "%s", text.Truncate(after.Message, maxEventMessage))
	}
}

// handedOver names the objects whose legacy managers the apply handed
// over, with the managers.
func handedOver(cs apply.ChangeSet) string {
	var items []string
	for _, c := range cs.Changes {
		if len(c.HandedOver) > 0 {
			items = append(items, c.Ref.String()+" (from "+strings.Join(c.HandedOver, ", ")+")")
		}
	}
	return text.Summarize(items, 5)
}

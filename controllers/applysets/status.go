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
	"strings"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// Size limits of what people read: the API caps a condition message at
// 32768 bytes, but a screenful is what helps.
const (
	maxConditionMessage = 1024
	maxEventMessage     = 1000
	maxEventFields      = 10
	// The API's own limits on status.warnings.
	maxWarnings     = 20
	maxWarningBytes = 512
	// maxFields bounds the field paths of one object in status.plan,
	// status.conflicts and status.drift: a large CRD can change thousands.
	maxFields     = 32
	maxFieldBytes = 256
	// maxListBytes bounds status.conflicts and status.drift: their first
	// objects are named, however many objects conflict.
	maxListBytes = 32 << 10
)

// setStatus fills in the status from the outcome of a reconcile of generation.
func setStatus(status *applyv1alpha1.ApplySetStatus, generation int64, o outcome) {
	o.confirmed = confirmsLastApply(status, generation, o)
	if o.setID != "" {
		status.ApplySetID = o.setID
	}
	if o.suspended {
		setCondition(status, generation, applyv1alpha1.ConditionReconciling, metav1.ConditionFalse, applyv1alpha1.ReasonSuspended, "Reconciliation is suspended")
		return
	}
	if o.warnings != nil {
		status.Warnings = text.Limit(*o.warnings, maxWarnings, maxWarningBytes)
	}
	if o.sources != nil {
		status.Sources = o.sources
	}
	setMembers(status, o)
	if o.foreign != nil {
		status.ForeignMembers = foreignStatus(o.foreign)
	}
	if !o.recheck && !o.confirmed && (o.applied.Changes != nil || o.pruned.Changes != nil || (o.err == nil && o.waitingFor == "")) {
		setPlan(status, o)
	}
	setApproval(status, o)
	setWindow(status, o)
	if o.held() && o.err == nil {
		markOutsideWindow(status, generation, o)
		return
	}
	setConditions(status, generation, o)
}

// confirmsLastApply is a full reconcile that found a set as the last
// successful apply of its generation left it: every object as declared,
// nothing to prune, no conflict or drift. The plan and the Ready message
// stay that apply's, so an operator that restarts and verifies every set
// again writes none of them.
func confirmsLastApply(status *applyv1alpha1.ApplySetStatus, generation int64, o outcome) bool {
	ready := readyOf(status)
	if o.recheck || o.dryRun || o.err != nil || o.approval != nil || o.waits() ||
		ready == nil || ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != generation ||
		ready.Reason != applyv1alpha1.ReasonSucceeded || status.Plan == nil || ptr.Deref(status.Plan.DryRun, false) {
		return false
	}
	return o.applied.Count(apply.Unchanged) == len(o.applied.Changes) && len(o.pruned.Changes) == 0 && undisputed(o.applied)
}

// undisputed is an apply that met no other manager's change: no conflict,
// and no drift taken back or left in place.
func undisputed(cs apply.ChangeSet) bool {
	return len(cs.Conflicts) == 0 && len(cs.Drift) == 0 && len(cs.DriftLeft) == 0
}

// setPlan records what the reconcile did, or would do.
func setPlan(status *applyv1alpha1.ApplySetStatus, o outcome) {
	status.Plan = plan(o)
	status.Conflicts = conflicts(o.applied.Conflicts)
	status.Drift = driftStatus(o.applied)
}

// setConditions sets Ready, Reconciling and Stalled, and the members' health.
func setConditions(status *applyv1alpha1.ApplySetStatus, generation int64, o outcome) {
	since := waitingSince(status, generation, o.now)
	status.Health = nil
	switch skipped := skippedPrunes(o.pruned); {
	case o.err != nil && o.terminal:
		markStalled(status, generation, o.reason, o.err.Error())
	case o.err != nil:
		markProgressing(status, generation, o.reason, o.err.Error(), "Retrying: "+o.err.Error(), false)
	case o.approval != nil && o.approval.awaiting:
		markAwaiting(status, generation, awaitingMessage(status, o))
	case o.waitingFor != "":
		msg := "Waiting for what it depends on (spec.dependsOn): " + o.waitingFor
		markProgressing(status, generation, applyv1alpha1.ReasonDependencyNotReady, msg, msg, true)
	case o.health != nil && !o.health.allCurrent():
		setWaiting(status, generation, since, o)
	case o.pruned.Count(apply.Waiting) > 0 && !o.dryRun:
		msg := "Pruning in reverse apply order: " + waitingDeletes(o.pruned)
		markProgressing(status, generation, applyv1alpha1.ReasonPruning, msg, msg, true)
	case skipped != "" && !o.dryRun:
		markStalled(status, generation, applyv1alpha1.ReasonPruneSkipped, "Applied, but kept members that left the set: "+skipped+
			"; remove their "+applyset.PartOfLabel+" label, or what makes them another's, to let them go")
	case o.dryRun:
		markReady(status, generation, applyv1alpha1.ReasonPreviewed, "Dry run: nothing changed; status.plan shows what an apply would do")
	default:
		if o.health != nil {
			status.Health = healthStatus(o.health, nil)
		}
		markReady(status, generation, readyReason(status), readyMessage(status, o))
	}
}

// readyMessage says what a successful reconcile did, and what it left alone.
func readyMessage(status *applyv1alpha1.ApplySetStatus, o outcome) string {
	created, configured, unchanged, pruned := o.applied.Count(apply.Created), o.applied.Count(apply.Configured),
		o.applied.Count(apply.Unchanged), o.pruned.Count(apply.Pruned)
	if o.confirmed { // what the apply the reconcile confirmed did
		c := ptr.Deref(status.Plan.Counts, applyv1alpha1.PlanCounts{})
		created, configured, unchanged, pruned = count(c.Create), count(c.Update), count(c.Unchanged), count(c.Prune)
	}
	msg := fmt.Sprintf("Applied %d objects: %d created, %d configured, %d unchanged; %d pruned",
		len(o.declared), created, configured, unchanged, pruned)
	if o.health != nil {
		msg += fmt.Sprintf("; all %d members are healthy", o.health.summary.Total())
	}
	if o.recheck {
		msg = fmt.Sprintf("All %d members are healthy", o.health.summary.Total())
	}
	if f := status.ForeignMembers; f != nil && f.Count > 0 {
		msg += fmt.Sprintf("; %d foreign objects carry its label and are left alone (status.foreignMembers)", f.Count)
	}
	return msg + driftMessage(status)
}

// readyReason is Succeeded, or Drifted while the set leaves drift in place:
// it is Ready, since it did all its driftPolicy asks.
func readyReason(status *applyv1alpha1.ApplySetStatus) string {
	if len(reportedDrift(status.Drift)) > 0 {
		return applyv1alpha1.ReasonDrifted
	}
	return applyv1alpha1.ReasonSucceeded
}

// setWaiting sets the conditions of a set whose members are not all healthy:
// Progressing while it waits, Stalled once one failed or spec.timeout passed.
func setWaiting(status *applyv1alpha1.ApplySetStatus, generation int64, since time.Time, o outcome) {
	status.Health = healthStatus(o.health, &since)
	reason, msg := unhealthyMessage(o.health, o.now.Sub(since) > o.timeout, o.timeout)
	if reason == applyv1alpha1.ReasonProgressing {
		markProgressing(status, generation, reason, msg, msg, true)
		return
	}
	markStalled(status, generation, reason, msg)
}

// The three shapes of a set's kstatus conditions. Each but a retry marks the
// generation as observed: the operator did all it can with this spec.

func markReady(status *applyv1alpha1.ApplySetStatus, generation int64, reason, msg string) {
	setCondition(status, generation, applyv1alpha1.ConditionReady, metav1.ConditionTrue, reason, msg)
	apimeta.RemoveStatusCondition(&status.Conditions, applyv1alpha1.ConditionReconciling)
	apimeta.RemoveStatusCondition(&status.Conditions, applyv1alpha1.ConditionStalled)
	status.ObservedGeneration = generation
}

// markAwaiting: the operator did all it may until a person approves.
func markAwaiting(status *applyv1alpha1.ApplySetStatus, generation int64, msg string) {
	setCondition(status, generation, applyv1alpha1.ConditionReady, metav1.ConditionFalse, applyv1alpha1.ReasonAwaitingApproval, msg)
	apimeta.RemoveStatusCondition(&status.Conditions, applyv1alpha1.ConditionReconciling)
	apimeta.RemoveStatusCondition(&status.Conditions, applyv1alpha1.ConditionStalled)
	status.ObservedGeneration = generation
}

func markStalled(status *applyv1alpha1.ApplySetStatus, generation int64, reason, msg string) {
	setCondition(status, generation, applyv1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg)
	setCondition(status, generation, applyv1alpha1.ConditionStalled, metav1.ConditionTrue, reason, msg)
	apimeta.RemoveStatusCondition(&status.Conditions, applyv1alpha1.ConditionReconciling)
	status.ObservedGeneration = generation
}

func markProgressing(status *applyv1alpha1.ApplySetStatus, generation int64, reason, msg, progress string, observed bool) {
	setCondition(status, generation, applyv1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg)
	setCondition(status, generation, applyv1alpha1.ConditionReconciling, metav1.ConditionTrue, applyv1alpha1.ReasonProgressing, progress)
	apimeta.RemoveStatusCondition(&status.Conditions, applyv1alpha1.ConditionStalled)
	if observed {
		status.ObservedGeneration = generation
	}
}

// readyOf returns the set's Ready condition, nil before it has one.
func readyOf(status *applyv1alpha1.ApplySetStatus) *metav1.Condition {
	return apimeta.FindStatusCondition(status.Conditions, applyv1alpha1.ConditionReady)
}

// waitingDeletes says which deletes wait, and for what.
func waitingDeletes(pruned apply.ChangeSet) string {
	var items []string
	for _, c := range pruned.Changes {
		if c.Action == apply.Waiting {
			items = append(items, c.Ref.String()+" "+c.Reason)
		}
	}
	return text.Summarize(items, 3)
}

// skippedPrunes describes the members a prune kept, with the reasons.
func skippedPrunes(pruned apply.ChangeSet) string {
	var items []string
	for _, c := range pruned.Changes {
		if c.Action == apply.Skipped {
			items = append(items, c.Ref.String()+" ("+c.Reason+")")
		}
	}
	return text.Summarize(items, 5)
}

func setCondition(status *applyv1alpha1.ApplySetStatus, generation int64, kind string, s metav1.ConditionStatus, reason, msg string) {
	apimeta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type: kind, Status: s, Reason: reason, Message: text.Truncate(msg, maxConditionMessage), ObservedGeneration: generation,
	})
}

func splitKinds(hint string) []string {
	if hint == "" {
		return nil
	}
	return strings.Split(hint, ",")
}

// conflicts are the first conflicts (or drift) that fit in maxListBytes.
func conflicts(in []apply.Conflict) []applyv1alpha1.Conflict {
	out, _ := conflictsWithin(in, maxListBytes)
	return out
}

// conflictsWithin are the first conflicts that fit in budget bytes, and
// the bytes left.
func conflictsWithin(in []apply.Conflict, budget int) ([]applyv1alpha1.Conflict, int) {
	out := make([]applyv1alpha1.Conflict, 0, len(in))
	left := budget
	for _, c := range in {
		conflict := applyv1alpha1.Conflict{ObjectReference: ref(c.Ref), Manager: c.Manager, Fields: boundedFields(c.Fields)}
		size := updateSize(applyv1alpha1.ObjectUpdate{ObjectReference: conflict.ObjectReference, Fields: conflict.Fields}) + len(c.Manager)
		if left-size < 0 {
			break
		}
		left -= size
		out = append(out, conflict)
	}
	return out, left
}

// boundedFields keeps status small however many fields an object changed.
func boundedFields(paths []string) []string {
	return text.Limit(paths, maxFields, maxFieldBytes)
}

func ref(r apply.ObjectRef) applyv1alpha1.ObjectReference {
	return applyv1alpha1.ObjectReference{Group: r.GroupKind.Group, Kind: r.GroupKind.Kind, Namespace: r.Namespace, Name: r.Name}
}

// maxForeignItems bounds the foreign objects status names; it counts them all.
const maxForeignItems = 20

// maxLabelledBy is the API's bound on a foreign member's labelledBy.
const maxLabelledBy = 256

// setMembers records the set's members a reconcile leaves, if it recorded
// them: its inventory, kept inline or in the chunks status names, their
// number and kinds.
func setMembers(status *applyv1alpha1.ApplySetStatus, o outcome) {
	if o.inventory == nil || o.placed == nil {
		return
	}
	setRecord(status, *o.inventory, *o.placed)
}

// setRecord records the members inv in status, kept where placed says.
func setRecord(status *applyv1alpha1.ApplySetStatus, inv inventory.Inventory, placed inventory.Placed) {
	status.Members, status.Inventory = placed.Members, placed.Status
	status.MemberCount = ptr.To(int32(inv.Len()))
	kinds := sets.New[schema.GroupKind]()
	for _, e := range inv.Entries() {
		kinds.Insert(e.Ref.GroupKind)
	}
	status.GroupKinds = splitKinds(applyset.FormatGroupKinds(kinds))
}

// foreignStatus counts the foreign objects and names the first of them; nil
// when there are none.
func foreignStatus(foreign []apply.Change) *applyv1alpha1.ForeignMembers {
	if len(foreign) == 0 {
		return nil
	}
	out := &applyv1alpha1.ForeignMembers{Count: int32(len(foreign))}
	for _, c := range foreign[:min(len(foreign), maxForeignItems)] {
		out.Items = append(out.Items, applyv1alpha1.ForeignMember{ObjectReference: ref(c.Ref), LabelledBy: text.Truncate(applyset.FormatWriters(c.LabelledBy), maxLabelledBy)})
	}
	return out
}

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
	"time"

	"k8s.io/apimachinery/pkg/types"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// outcome is what one reconcile found, for the status.
type outcome struct {
	setID     string
	applied   apply.ChangeSet
	pruned    apply.ChangeSet
	declared  []apply.ObjectRef
	dryRun    bool
	err       error
	reason    string
	terminal  bool
	suspended bool
	// health is the members' health after a real apply of a set that waits for it.
	health *memberHealth
	// recheck is true when only the members the set waits for were judged
	// again: the plan and the inventory stay as the last apply left them.
	recheck bool
	// confirmed: a full reconcile found the set as the last apply of its
	// generation left it (confirmsLastApply); set by setStatus.
	confirmed bool
	// waitingFor names the dependencies the set waits for; nothing was applied.
	waitingFor string
	// pollDependencies says that a change of some dependency cannot wake
	// the set (no watch of its kind), so it looks again by itself.
	pollDependencies bool
	// now and timeout judge how long the set has waited.
	now     time.Time
	timeout time.Duration
	// warnings are what the inputs' check left out; nil when the inputs
	// were not read.
	warnings *[]string
	// listed are the recorded members a prune's listing found, by UID; nil
	// when nothing was listed.
	listed map[apply.ObjectRef]types.UID
	// foreign are the objects that carry the set's label although the set
	// did not apply them; nil when nothing was listed.
	foreign []apply.Change
	// sources count the objects each source declared; nil when the inputs
	// were not read or were refused.
	sources []applyv1alpha1.SourceStatus
	// artifactChanges name the oci sources read from another artifact than
	// at the last reconcile, with both digests.
	artifactChanges []string
	// inventory is the set's members after a real reconcile; nil when the
	// reconcile did not look at them (a preview, a recheck, a stop before
	// the apply).
	inventory *inventory.Inventory
	// placed is where inventory is kept: status.members or chunks.
	placed *inventory.Placed
	// lostChunks are the chunks of the stored inventory that were not found.
	lostChunks []string
	// approval is nil for a set that applies without approval.
	approval *approvalOutcome
	// window is nil when the reconcile stopped before the windows phase.
	window *windowOutcome
}

// failure is o stopped by err, for reason; a terminal failure waits for a
// change of the set instead of a retry.
func failure(o outcome, reason string, terminal bool, err error) outcome {
	o.reason, o.terminal, o.err = reason, terminal, err
	return o
}

// retriedAtInterval tells whether a failure waits for the set's interval
// rather than a change of the set or a backoff: a conflict another manager
// may resolve, a budget what the set reads or how fast the cluster answers
// may bring it within, and any stop of a set whose tag may come to point
// to a fixed artifact.
func retriedAtInterval(set applyv1alpha1.Set, o outcome) bool {
	return o.reason == applyv1alpha1.ReasonConflict || o.reason == applyv1alpha1.ReasonBudgetExceeded ||
		(o.terminal && readsArtifacts(set))
}

// merge takes what a run of the set found and did into o.
func (o outcome) merge(res setrun.Result) outcome {
	o.applied, o.pruned, o.dryRun = res.Applied, res.Pruned, o.dryRun || res.DryRun
	o.err, o.reason, o.terminal = res.Err, res.Reason, res.Terminal
	o.warnings, o.listed, o.foreign, o.inventory = res.Warnings, res.Listed, res.Foreign, res.Inventory
	if res.Sources != nil {
		// The inputs were read, and declare something (or may declare nothing).
		o.sources = res.Sources
		for _, obj := range res.Objects {
			o.declared = append(o.declared, obj.Ref())
		}
	}
	if a := res.Approval; a != nil && o.approval != nil {
		o.approval.digest, o.approval.awaiting, o.approval.held = a.Digest, a.Awaiting, a.Held
		o.approval.spent, o.approval.recorded = a.Spent, a.Recorded
	}
	return o
}

// approvalMode is the approval the set is held to, Auto when none.
func (o outcome) approvalMode() applyv1alpha1.Approval {
	if o.approval == nil {
		return applyv1alpha1.ApprovalAuto
	}
	return o.approval.mode
}

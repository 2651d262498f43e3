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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// run is what the reconcile's history entry says of it: when it started,
// and, for a run that applied or previewed, what it was given and did.
type run struct {
	started time.Time
	// traceID is the run's trace, "" while traces are off.
	traceID string
	// declared is the digest of what it declared, "" when unknown; counts
	// nil when the run did nothing to the members.
	declared string
	counts   *applyv1alpha1.HistoryCounts
	// approvedBy names who approved the plan the run spent, "" when it
	// spent none.
	approvedBy string
}

// ran records what the reconcile's outcome says of its run, for the
// history entry its status write adds.
func (rec *record) ran(o outcome) {
	rec.run.declared = o.applied.Declared
	if o.applied.Changes != nil || o.pruned.Changes != nil {
		rec.run.counts = historyCounts(o.applied, o.pruned)
	}
}

func historyCounts(applied, pruned apply.ChangeSet) *applyv1alpha1.HistoryCounts {
	n := func(actions ...int) *int32 {
		sum := 0
		for _, a := range actions {
			sum += a
		}
		if sum == 0 {
			return nil
		}
		return ptr.To(int32(min(sum, 1<<31-1)))
	}
	return &applyv1alpha1.HistoryCounts{
		Applied:   n(applied.Count(apply.Created), applied.Count(apply.Configured), applied.Count(apply.Recreated)),
		Pruned:    n(pruned.Count(apply.Pruned), pruned.Count(apply.Disbanded)),
		Unchanged: n(applied.Count(apply.Unchanged)),
		Failed:    n(applied.Count(apply.Failed), pruned.Count(apply.Failed)),
	}
}

// addHistory adds the run's entry to status, about to be written: a
// status the reconcile does not change adds nothing, so a steady set still
// costs no write. A status without a Ready condition (a suspended set)
// has nothing to say.
func (rec *record) addHistory(status *applyv1alpha1.ApplySetStatus) {
	ready := readyOf(status)
	if ready == nil || rec.run.started.IsZero() {
		return
	}
	now := rec.r.now()
	e := applyv1alpha1.HistoryEntry{Digest: rec.run.declared, LastReconciledStatus: ready.Reason, TotalReconciliations: 1,
		ObservedGeneration: rec.set.GetGeneration(), Counts: rec.run.counts, TraceID: rec.run.traceID, ApprovedBy: rec.run.approvedBy,
		FirstReconciled:        &metav1.Time{Time: rec.run.started},
		LastReconciled:         &metav1.Time{Time: rec.run.started},
		LastReconciledDuration: &metav1.Duration{Duration: max(now.Sub(rec.run.started), 0).Round(time.Millisecond)}}
	if status.Plan != nil {
		e.Plan = status.Plan.Digest
	}
	status.History = pushHistory(status.History, e)
}

// pushHistory adds e to history, newest first: the top entry counts it
// when e declared the same and ended the same way, else e is a new entry
// and the oldest beyond applyv1alpha1.MaxHistory go. A run that read no
// declaration (a health check again) declared what the top entry did, and
// one that spent no approval keeps the entry's approver.
func pushHistory(history []applyv1alpha1.HistoryEntry, e applyv1alpha1.HistoryEntry) []applyv1alpha1.HistoryEntry {
	if len(history) > 0 {
		top := history[0]
		if e.Digest == "" {
			e.Digest = top.Digest
		}
		if top.Digest == e.Digest && top.LastReconciledStatus == e.LastReconciledStatus {
			e.FirstReconciled, e.TotalReconciliations = top.FirstReconciled, top.TotalReconciliations+1
			if e.ApprovedBy == "" {
				e.ApprovedBy = top.ApprovedBy
			}
			return append([]applyv1alpha1.HistoryEntry{e}, history[1:]...)
		}
	}
	out := make([]applyv1alpha1.HistoryEntry, 0, min(len(history)+1, applyv1alpha1.MaxHistory))
	out = append(out, e)
	return append(out, history[:min(len(history), applyv1alpha1.MaxHistory-1)]...)
}

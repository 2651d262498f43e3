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
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/metrics"
	"github.com/applyset-operator/applyset-operator/internal/reqcount"
	"github.com/applyset-operator/applyset-operator/internal/tracing"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// reported is what a set said before this reconcile, so that only what
// changed becomes an Event.
type reported struct {
	ready    *metav1.Condition
	warnings []string
	foreign  *applyv1alpha1.ForeignMembers
	drift    []applyv1alpha1.Drift
}

func reportedOf(set applyv1alpha1.Set) reported {
	status := set.GetSetStatus()
	return reported{ready: readyOf(status).DeepCopy(), warnings: slices.Clone(status.Warnings),
		foreign: status.ForeignMembers.DeepCopy(), drift: slices.Clone(status.Drift)}
}

// report tells one outcome everywhere it is told, together: the set's
// status, the Events of what changed since before, and the metrics.
func (r *Reconciler) report(ctx context.Context, set applyv1alpha1.Set, before reported, o outcome) {
	setStatus(set.GetSetStatus(), set.GetGeneration(), o)
	r.recordOutcome(ctx, set, before.ready, o)
	r.recordWindow(ctx, set, before.ready, o)
	r.recordWarnings(ctx, set, before.warnings)
	r.recordForeign(ctx, set, before.foreign, o)
	r.recordDrift(ctx, set, before.drift)
	recordMetrics(r.groupKind.Kind, set, o)
	recordDriftMetric(r.groupKind.Kind, set, o)
}

// event records an Event about set. Within a trace its note ends with the
// trace's ID, so that an Event leads to the spans of the run that told it;
// a series of the same Event keeps its first note, and so its first trace.
func (r *Reconciler) event(ctx context.Context, set applyv1alpha1.Set, eventType, reason, action, note string, args ...any) {
	msg := fmt.Sprintf(note, args...)
	if id := tracing.TraceID(ctx); id != "" {
		suffix := " (trace " + id + ")"
		msg = text.Truncate(msg, maxEventMessage-len(suffix)) + suffix
	}
	r.recorder.Eventf(set, nil, eventType, reason, action, "%s", msg)
}

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

func (r *Reconciler) recordOutcome(ctx context.Context, set applyv1alpha1.Set, before *metav1.Condition, o outcome) {
	r.recordApproval(ctx, set, o)
	for _, change := range o.artifactChanges {
		r.event(ctx, set, "Normal", ReasonArtifactChanged, "Apply", "%s", text.Truncate("Applying "+change, maxEventMessage))
	}
	if o.err != nil {
		r.event(ctx, set, "Warning", o.reason, "Apply", "%s", text.Truncate(o.err.Error(), maxEventMessage))
		return
	}
	if o.dryRun {
		return // a preview changes nothing; status.plan tells the rest
	}
	for _, c := range o.applied.Drift {
		r.event(ctx, set, "Warning", ReasonDriftCorrected, "Apply", "%s",
			text.Truncate(fmt.Sprintf("%s: put back %s, changed by %s; list them in spec.ignoreFields to leave them to it",
				c.Ref, text.Summarize(c.Fields, maxEventFields), c.Manager), maxEventMessage))
	}
	for _, c := range o.applied.Forced {
		r.event(ctx, set, "Normal", ReasonOwnershipForced, "Apply", "%s",
			text.Truncate(fmt.Sprintf("%s: took %s from %s (spec.force)", c.Ref, text.Summarize(c.Fields, maxEventFields), c.Manager), maxEventMessage))
	}
	if handed := handedOver(o.applied); handed != "" {
		r.event(ctx, set, "Normal", ReasonOwnershipHandedOver, "Apply", "%s", text.Truncate(
			"Took over the ownership of client-side applies, so the set owns exactly what it declares: "+handed, maxEventMessage))
	}
	if skipped := skippedPrunes(o.pruned); skipped != "" {
		r.event(ctx, set, "Warning", applyv1alpha1.ReasonPruneSkipped, "Prune", "%s", text.Truncate("Kept "+skipped, maxEventMessage))
	}
	if n := o.applied.Count(apply.Created) + o.applied.Count(apply.Configured) + o.pruned.Count(apply.Pruned); n > 0 {
		r.event(ctx, set, "Normal", ReasonApplied, "Apply", "%d created, %d configured, %d pruned",
			o.applied.Count(apply.Created), o.applied.Count(apply.Configured), o.pruned.Count(apply.Pruned))
	}
	r.recordHealthTransition(ctx, set, before, readyOf(set.GetSetStatus()))
}

// recordApproval tells, once per plan, that a plan awaits approval, and
// that an approved plan was applied.
func (r *Reconciler) recordApproval(ctx context.Context, set applyv1alpha1.Set, o outcome) {
	a := o.approval
	switch {
	case a == nil:
	case a.awaiting && a.digest != a.before:
		r.event(ctx, set, "Normal", applyv1alpha1.ReasonAwaitingApproval, "Plan", "%s",
			text.Truncate(readyOf(set.GetSetStatus()).Message, maxEventMessage))
	case a.spent:
		r.event(ctx, set, "Normal", ReasonApprovedPlanApplied, "Apply", "Applied the approved plan %s (approval %d)%s",
			a.digest, ptr.Deref(set.GetSetStatus().Approval.Sequence, 0), approvedByNote(set, a.digest))
	}
}

// recordWarnings tells, once, of inputs taken with a part left out.
func (r *Reconciler) recordWarnings(ctx context.Context, set applyv1alpha1.Set, before []string) {
	now := set.GetSetStatus().Warnings
	if len(now) == 0 || slices.Equal(before, now) {
		return
	}
	r.event(ctx, set, "Warning", ReasonInputWarning, "Apply", "%s",
		text.Truncate("Took inputs with a part left out: "+strings.Join(now, "; "), maxEventMessage))
}

// recordHealthTransition tells, once, when a set starts waiting for its
// members, when the wait fails, and when it ends well.
func (r *Reconciler) recordHealthTransition(ctx context.Context, set applyv1alpha1.Set, before, after *metav1.Condition) {
	if after == nil || (before != nil && before.Reason == after.Reason) {
		return
	}
	switch {
	case after.Reason == applyv1alpha1.ReasonProgressing:
		r.event(ctx, set, "Normal", applyv1alpha1.ReasonProgressing, "Wait", "%s", text.Truncate(after.Message, maxEventMessage))
	case after.Reason == applyv1alpha1.ReasonHealthCheckFailed:
		r.event(ctx, set, "Warning", applyv1alpha1.ReasonHealthCheckFailed, "Wait", "%s", text.Truncate(after.Message, maxEventMessage))
	case after.Status == metav1.ConditionTrue && before != nil &&
		(before.Reason == applyv1alpha1.ReasonProgressing || before.Reason == applyv1alpha1.ReasonHealthCheckFailed):
		r.event(ctx, set, "Normal", applyv1alpha1.ReasonSucceeded, "Wait", "%s", text.Truncate(after.Message, maxEventMessage))
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

// setKindLabel names the kind of set (ApplySet, ClusterApplySet) a figure is about.
const setKindLabel = "set_kind"

var (
	objectsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "applyset_operator_objects_total",
		Help: "Objects handled by set reconciles, by kind of set, action (Created, Configured, Unchanged, Pruned, Skipped, Failed) and whether it was a dry run.",
	}, []string{setKindLabel, "action", "dry_run"})
	conflictsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "applyset_operator_conflicts_total",
		Help: "Applies stopped by fields another field manager owns.",
	}, []string{setKindLabel})
	foreignObjects = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "applyset_operator_foreign_objects",
		Help: "Objects that carry a set's part-of label although the set did not apply them, by set; the set leaves them alone.",
	}, []string{setKindLabel, "namespace", "name"})
	approvalAwaitingSince = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "applyset_operator_approval_awaiting_since_seconds",
		Help: "When the plan of a set began to wait for approval, in Unix seconds, by set; absent when nothing waits.",
	}, []string{setKindLabel, "namespace", "name"})
	approvalWaitSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "applyset_operator_approval_wait_seconds",
		Help:    "How long approved plans waited for their approval.",
		Buckets: prometheus.ExponentialBuckets(1, 4, 10),
	}, []string{setKindLabel})
	setReconcileDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "applyset_operator_set_reconcile_duration_seconds",
		Help:    "Time to reconcile one ApplySet or ClusterApplySet.",
		Buckets: prometheus.ExponentialBuckets(0.005, 3, 10),
	}, []string{setKindLabel})
	reconcileStepSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "applyset_operator_reconcile_step_seconds",
		Help: "Time one step of a set's reconcile took: read, plan-prune, before-writes (hints, approval, inventory checks), " +
			"inspect, check, write (each group), prune, narrow-hints, chunks and status.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
	}, []string{setKindLabel, "step"})
	reconcileStepRequests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "applyset_operator_reconcile_step_requests",
		Help: "Requests to the API server one step of a set's reconcile made: the steps of " +
			"applyset_operator_reconcile_step_seconds, the phases before them (check-parent, compile-checks, actor, authority, engine, " +
			"approval, dependencies, windows), recheck (of the members' health) and run (the run's requests outside its steps).",
		Buckets: prometheus.ExponentialBuckets(1, 4, 8),
	}, []string{setKindLabel, "step"})
)

func init() {
	metrics.MustRegister(objectsTotal, conflictsTotal, foreignObjects, approvalAwaitingSince, approvalWaitSeconds, setReconcileDuration,
		reconcileStepSeconds, reconcileStepRequests)
}

// timed records how long a step of a reconcile of the reconciler's kind
// took, and the requests it made.
func (r *Reconciler) timed(ctx context.Context, step string, took time.Duration) {
	reconcileStepSeconds.WithLabelValues(r.groupKind.Kind, step).Observe(took.Seconds())
	r.counted(ctx, step)
}

// counted records the requests a step of the reconcile of ctx made: those
// since the last step it counted.
func (r *Reconciler) counted(ctx context.Context, step string) {
	if c := reqcount.From(ctx); c != nil {
		reconcileStepRequests.WithLabelValues(r.groupKind.Kind, step).Observe(float64(c.Take()))
	}
}

func recordMetrics(kind string, set applyv1alpha1.Set, o outcome) {
	if o.foreign != nil {
		foreignObjects.WithLabelValues(kind, set.GetNamespace(), set.GetName()).Set(float64(len(o.foreign)))
	}
	dryRun := "false"
	if o.dryRun {
		dryRun = "true"
	}
	for _, cs := range []apply.ChangeSet{o.applied, o.pruned} {
		for _, c := range cs.Changes {
			objectsTotal.WithLabelValues(kind, string(c.Action), dryRun).Inc()
		}
	}
	if n := len(o.applied.Conflicts); n > 0 {
		conflictsTotal.WithLabelValues(kind).Add(float64(n))
	}
	recordApprovalMetrics(kind, set, o)
}

func recordApprovalMetrics(kind string, set applyv1alpha1.Set, o outcome) {
	a, status := o.approval, set.GetSetStatus().Approval
	if a != nil && a.spent && a.waitingSince != nil {
		approvalWaitSeconds.WithLabelValues(kind).Observe(o.now.Sub(a.waitingSince.Time).Seconds())
	}
	if status == nil || status.AwaitingSince == nil {
		approvalAwaitingSince.DeleteLabelValues(kind, set.GetNamespace(), set.GetName())
		return
	}
	approvalAwaitingSince.WithLabelValues(kind, set.GetNamespace(), set.GetName()).Set(float64(status.AwaitingSince.Unix()))
}

// forgetMetrics drops the figures of a set that is gone.
func forgetMetrics(kind string, set applyv1alpha1.Set) {
	forgetMetricsOf(kind, client.ObjectKeyFromObject(set))
}

// forgetMetricsOf drops the figures of the set named by key.
func forgetMetricsOf(kind string, key client.ObjectKey) {
	foreignObjects.DeleteLabelValues(kind, key.Namespace, key.Name)
	approvalAwaitingSince.DeleteLabelValues(kind, key.Namespace, key.Name)
	driftedObjects.DeleteLabelValues(kind, key.Namespace, key.Name)
}

// ReasonForeignMembers is the reason of the Event when objects carry the set's label although the set did
// not apply them; they are left alone. A Warning, since something copies or
// writes the label: a controller copying its parent's labels onto what it
// creates, or a person.
const ReasonForeignMembers = "ForeignMembers"

// recordForeign tells, once for each, of objects that newly carry the set's
// label without being its members.
func (r *Reconciler) recordForeign(ctx context.Context, set applyv1alpha1.Set, before *applyv1alpha1.ForeignMembers, o outcome) {
	known := sets.New[applyv1alpha1.ObjectReference]()
	if before != nil {
		for _, item := range before.Items {
			known.Insert(item.ObjectReference)
		}
	}
	var fresh []string
	for _, c := range o.foreign {
		if !known.Has(ref(c.Ref)) {
			fresh = append(fresh, c.Ref.String()+" ("+c.Reason+")")
		}
	}
	if len(fresh) == 0 {
		return
	}
	r.event(ctx, set, "Warning", ReasonForeignMembers, "Prune", "%s", text.Truncate(fmt.Sprintf(
		"Left alone %s: they carry the set's %s label, but the set did not apply them; declare one in the set to adopt it, "+
			"or remove its label", text.Summarize(fresh, 5), applyset.PartOfLabel), maxEventMessage))
}

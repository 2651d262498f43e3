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
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/internal/windows"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// windowOutcome is what a set's delivery windows said at the reconcile.
type windowOutcome struct {
	decision windows.Decision
	// held: nothing was applied or pruned.
	held bool
	// overridden: the window-override annotation let this apply through.
	overridden bool
	// digest names the plan the windows hold, or let through; "" when the
	// plan changes nothing, or was not made.
	digest string
}

// held tells whether windows held the set.
func (o outcome) held() bool { return o.window != nil && o.window.held }

// waits tells whether the set waited, for its dependencies or its
// windows, and so applied nothing.
func (o outcome) waits() bool { return o.waitingFor != "" || o.held() }

// now is the time a reconcile judges by: the one clock of every decision
// (windows, waits, approvals, probes), Options.Clock, so that tests can
// move it.
func (r *Reconciler) now() time.Time {
	return r.clock.Now()
}

// windowsPhase decides whether the set's windows, or its namespace's, hold
// it: a held set only previews its plan, which the window-override
// annotation, naming the plan's digest, lets through once (setrun's
// gateWindow), where only approvers can write it. A preview changes
// nothing, so it is never held; deletion runs apart (reconcileDelete) and
// is never held either.
func (r *Reconciler) windowsPhase(ctx context.Context, s *scope) bool {
	if s.o.dryRun {
		return true
	}
	own, err := parseWindows(s.spec.Windows)
	if err != nil {
		return s.stop(applyv1alpha1.ReasonInvalidWindow, true, fmt.Errorf("spec.windows: %w", err))
	}
	groups, err := r.namespaceWindows(ctx, s.set)
	if err != nil {
		return s.stop(applyv1alpha1.ReasonInvalidWindow, false, err)
	}
	if len(own) > 0 {
		groups = append(groups, own)
	}
	if len(groups) == 0 {
		s.o.window = &windowOutcome{decision: windows.Decision{Allowed: true}}
		return true
	}
	s.o.window = &windowOutcome{decision: r.decide(groups, s.o.now)}
	if s.o.window.decision.Allowed {
		return true
	}
	override := s.set.GetAnnotations()[applyv1alpha1.WindowOverrideAnnotation]
	if override != "" {
		if err := r.overrideEnforced(ctx, s.set); err != nil {
			return s.stop(applyv1alpha1.ReasonApprovalNotEnforced, false, fmt.Errorf("not taking %s: %w", applyv1alpha1.WindowOverrideAnnotation, err))
		}
	}
	s.o.window.held, s.hold = true, &setrun.WindowHold{Override: override}
	return true
}

// mergeWindow takes what the run's gate found: the plan it held, or let
// through and spent. A run that stopped before the gate stays held.
func (o outcome) mergeWindow(g *setrun.WindowGate) outcome {
	if g == nil || o.window == nil {
		return o
	}
	o.window.held, o.window.overridden, o.window.digest = g.Held, g.Overridden && g.Recorded, g.Digest
	return o
}

// decide is what groups say at now: cached by the windows, so that a set
// woken again and again pays for its windows once until they change.
func (r *Reconciler) decide(groups [][]windows.Window, now time.Time) windows.Decision {
	if r.decisions == nil {
		return windows.DecideAll(groups, now)
	}
	return r.decisions.DecideAll(groups, now)
}

// overrideEnforced is nil once only approvers can write the override.
func (r *Reconciler) overrideEnforced(ctx context.Context, set applyv1alpha1.Set) error {
	if r.overrides == nil {
		return errApprovalNotEnforced
	}
	return r.overrides(ctx, set)
}

func parseWindows(in []applyv1alpha1.Window) ([]windows.Window, error) {
	out := make([]windows.Window, 0, len(in))
	for i, w := range in {
		d := time.Duration(0)
		if w.Duration != nil {
			d = w.Duration.Duration
		}
		parsed, err := windows.Parse(windows.Kind(w.Kind), w.Schedule, d, w.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("window %d: %w", i, err)
		}
		out = append(out, parsed)
	}
	return out, nil
}

// namespaceWindows are the windows the annotation of the set's namespace,
// and of its ServiceAccount's, declares: each a group of its own, which
// the set's windows cannot widen.
func (r *Reconciler) namespaceWindows(ctx context.Context, set applyv1alpha1.Set) ([][]windows.Window, error) {
	saNamespace, _ := set.GetServiceAccount()
	var groups [][]windows.Window
	for i, name := range []string{set.GetNamespace(), saNamespace} {
		if name == "" || (i == 1 && name == set.GetNamespace()) {
			continue
		}
		ns := &metav1.PartialObjectMetadata{}
		ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
		if err := r.client.Get(ctx, client.ObjectKey{Name: name}, ns); client.IgnoreNotFound(err) != nil {
			return nil, fmt.Errorf("reading Namespace %s for its delivery windows: %w", name, err)
		}
		raw, ok := ns.Annotations[applyv1alpha1.WindowsAnnotation]
		if !ok {
			continue
		}
		var declared []applyv1alpha1.Window
		if err := json.Unmarshal([]byte(raw), &declared); err != nil {
			return nil, fmt.Errorf("namespace %s: annotation %s is not a JSON list of windows: %w", name, applyv1alpha1.WindowsAnnotation, err)
		}
		parsed, err := parseWindows(declared)
		if err != nil {
			return nil, fmt.Errorf("namespace %s: annotation %s: %w", name, applyv1alpha1.WindowsAnnotation, err)
		}
		groups = append(groups, parsed)
	}
	return groups, nil
}

// setWindow records where the set stands with its windows; a set that
// declares none, in a namespace that declares none, has no status.window.
func setWindow(status *applyv1alpha1.ApplySetStatus, o outcome) {
	w := o.window
	if w == nil {
		return // the reconcile stopped before it looked at the windows
	}
	if w.decision.By == nil && w.decision.Next.IsZero() && w.decision.Allowed {
		status.Window = nil
		return
	}
	st := ptr.Deref(status.Window, applyv1alpha1.WindowStatus{})
	st.Held, st.Window, st.NextChange = ptr.To(w.held), "", ""
	if w.decision.By != nil {
		st.Window = text.Truncate(w.decision.By.String(), 512)
	}
	if !w.decision.Next.IsZero() {
		st.NextChange = w.decision.Next.Format(time.RFC3339)
	}
	status.Window = &st
}

// unsearchedDelay is how often a held set whose windows are too costly to
// search for their next opening looks again: each look decides exactly,
// within windows.MaxSteps.
const unsearchedDelay = time.Minute

// windowMessage says what holds the set, until when, and how to apply now.
func windowMessage(o outcome) string {
	d := o.window.decision
	what := "Outside every Allow window"
	if d.By != nil {
		what = "Held by the " + d.By.String()
	}
	until := "; no window opens within reach"
	switch {
	case d.Unsearched:
		until = fmt.Sprintf("; when one opens is past what one decision searches (%d schedule steps: openings of a window "+
			"that overlap), so the set looks again every %s", windows.MaxSteps, unsearchedDelay)
	case !d.Next.IsZero():
		until = "; the next opening is " + d.Next.Format(time.RFC3339)
	}
	if o.window.digest == "" {
		return what + until + ". Nothing is applied or pruned until then; the cluster holds what the set declares, so there is nothing to let through"
	}
	return fmt.Sprintf("%s%s. Nothing is applied or pruned until then; to apply this plan (status.plan) once now, "+
		"annotate the set %s=%s (needs the verb approve on it)", what, until, applyv1alpha1.WindowOverrideAnnotation, o.window.digest)
}

// markOutsideWindow: the operator did all it may until a window opens.
func markOutsideWindow(status *applyv1alpha1.ApplySetStatus, generation int64, o outcome) {
	status.Health = nil
	setCondition(status, generation, applyv1alpha1.ConditionReady, metav1.ConditionFalse, applyv1alpha1.ReasonOutsideWindow,
		windowMessage(o))
	apimeta.RemoveStatusCondition(&status.Conditions, applyv1alpha1.ConditionReconciling)
	apimeta.RemoveStatusCondition(&status.Conditions, applyv1alpha1.ConditionStalled)
	status.ObservedGeneration = generation
}

// untilWindowChange is when to look at a held set again: just after its
// windows next let it apply, not at each interval; at the interval when no
// opening is within reach.
func untilWindowChange(o outcome, interval time.Duration) time.Duration {
	next := o.window.decision.Next
	switch {
	case o.window.decision.Unsearched:
		return min(interval, unsearchedDelay)
	case next.IsZero():
		return interval
	}
	return max(next.Sub(o.now), 0) + time.Second
}

// recordWindow tells, once, that windows began to hold the set.
func (r *Reconciler) recordWindow(ctx context.Context, set applyv1alpha1.Set, before *metav1.Condition, o outcome) {
	if !o.held() || (before != nil && before.Reason == applyv1alpha1.ReasonOutsideWindow) {
		return
	}
	r.event(ctx, set, "Normal", applyv1alpha1.ReasonOutsideWindow, "Apply", "%s",
		text.Truncate(windowMessage(o), maxEventMessage))
}

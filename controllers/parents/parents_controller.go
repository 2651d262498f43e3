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

// Package parents reconciles every ApplySet parent in the cluster: it checks the
// parent's ID and tooling, verifies the members that claim it, keeps the
// contains-group-kinds hint true where an admin allowed it, and reports orphans.
package parents

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/internal/requeue"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Event reasons besides the problem reasons.
const (
	ReasonHintsResynced = "HintsResynced"
	ReasonVerified      = "Verified"
)

// syncWait is how long a request waits for caches that are still listing, as
// when a CRD has just been installed.
const syncWait = 250 * time.Millisecond

// Reconciler verifies one parent per request.
type Reconciler struct {
	Client client.Client
	// Reader reads live, to confirm findings that lagging caches can produce.
	Reader   client.Reader
	Parents  *membership.Parents
	Index    *membership.Index
	Recorder events.EventRecorder
	// RepairTooling names the toolings whose parents' hints the operator may rewrite.
	RepairTooling sets.Set[string]
	// Appliers maps a tooling to the field managers whose applies of the
	// part-of label vouch for a member of one of its sets.
	Appliers membership.Appliers
	// Resync is how often every parent is verified again without an event.
	Resync time.Duration

	states   parentStates
	reported sync.Map // membership.ParentRef -> fingerprint of the last reported findings
}

// Reconcile verifies the parent and reports what it found.
func (r *Reconciler) Reconcile(ctx context.Context, req membership.ParentRef) (reconcile.Result, error) {
	started := time.Now()
	defer func() { reconcileDuration.Observe(time.Since(started).Seconds()) }()
	logger := log.FromContext(ctx).WithValues("parent", req.String())

	// A view of the members still being listed would misjudge them. Types
	// that cannot be listed at all do not hold verification up: the verdict
	// names them, and says its findings may be incomplete.
	members, parents := r.Index.SyncState(), r.Parents.SyncState()
	if !members.Listed || !parents.Listed {
		return reconcile.Result{RequeueAfter: syncWait}, nil
	}
	publishUnlistable(log.FromContext(ctx), members.Failing, parents.Failing)
	obj, ok := r.Parents.Get(req)
	if !ok {
		r.states.forget(req)
		r.reported.Delete(req)
		return reconcile.Result{}, nil
	}
	obj = obj.DeepCopy()
	obj.SetGroupVersionKind(req.Type.Resource.GroupVersion().WithKind(req.Type.GroupKind.Kind))

	parent := applyset.ParseParent(req.Key(), obj.Labels, obj.Annotations)
	verdict := membership.Verify(parent, membership.Facts{
		ParentUID: obj.UID, Members: r.Index.Members(parent.ID), Failing: members.Failing,
		TypeOf: r.Index.TypeOf, TypeOfResource: r.Index.TypeOfResource, Appliers: r.Appliers.Of(parent.Tooling.Name),
	})
	if stale, err := r.cacheBehind(ctx, obj, verdict); err != nil {
		return reconcile.Result{}, err
	} else if stale {
		// The caches of parents and members move separately: while a tool
		// writes a parent and then its members (or prunes and then trims), one
		// may lag the other. Judge again once both have caught up.
		return reconcile.Result{RequeueAfter: syncWait}, nil
	}

	if r.mayRepair(parent) && verdict.NeedsRepair() {
		if err := r.resyncHint(ctx, obj, verdict); err != nil {
			r.Recorder.Eventf(obj, nil, "Warning", "HintResyncFailed", "Resync",
				"Writing %s failed: %v", applyset.GroupKindsAnnotation, err)
			return reconcile.Result{}, err
		}
		if verdict.DesiredKinds.IsSuperset(verdict.Kinds) {
			// The hint now covers every member; it is no longer a problem.
			verdict.Problems = withoutReason(verdict.Problems, membership.ReasonHintIncomplete)
		}
	}

	r.report(obj, req, verdict)
	logger.V(1).Info("Verified parent", "tooling", parent.Tooling.String(), "members", len(verdict.Members),
		"problems", len(verdict.Problems))
	return reconcile.Result{RequeueAfter: requeue.Jitter(r.Resync)}, nil
}

// cacheBehind checks, with live reads, the findings that cached views in
// passing can produce: it reports true when the parent or a flagged member
// changed since the cache saw it. It reads only when there is such a finding.
func (r *Reconciler) cacheBehind(ctx context.Context, parent *metav1.PartialObjectMetadata, v membership.Verdict) (bool, error) {
	if r.Reader == nil || !slices.ContainsFunc(v.Problems, func(p applyset.Problem) bool {
		return p.Reason == membership.ReasonHintIncomplete || p.Reason == membership.ReasonMemberOutOfScope
	}) {
		return false, nil
	}
	fresh := &metav1.PartialObjectMetadata{}
	fresh.SetGroupVersionKind(parent.GroupVersionKind())
	if err := r.Reader.Get(ctx, client.ObjectKeyFromObject(parent), fresh); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	if fresh.ResourceVersion != parent.ResourceVersion {
		return true, nil
	}
	for _, m := range v.Members {
		if v.Parent.Scope.Contains(m.Namespace) {
			continue
		}
		member := &metav1.PartialObjectMetadata{}
		member.SetGroupVersionKind(m.Resource.GroupVersion().WithKind(m.GroupKind.Kind))
		err := r.Reader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Name}, member)
		if apierrors.IsNotFound(err) || (err == nil && member.ResourceVersion != m.ResourceVersion) {
			return true, nil
		}
	}
	return false, nil
}

// mayRepair reports whether an admin allowed the operator to rewrite this
// parent's hint: its ID is its own and its tooling is on the allow-list. Our own
// ApplySets are never rewritten here; the apply engine keeps their hints.
func (r *Reconciler) mayRepair(p applyset.Parent) bool {
	return p.Trusted() && !identity.Owns(p.Tooling) && r.RepairTooling.Has(p.Tooling.Name)
}

// resyncHint adds the missing kinds to the hint with server-side apply. The field normally
// belongs to the tool's own manager (kubectl-applyset); like kubectl itself,
// which retries a conflicting parent update with force, the operator takes the
// field over on conflict, because an admin allowed it to repair this tooling.
func (r *Reconciler) resyncHint(ctx context.Context, parent *metav1.PartialObjectMetadata, v membership.Verdict) error {
	patch := applyset.ParentPatch(parent.GroupVersionKind(), v.Parent.Key, applyset.ParentFields{GroupKinds: v.DesiredKinds})
	applyHint := func(opts ...client.ApplyOption) error {
		return r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(patch.DeepCopy()),
			append(opts, client.FieldOwner(identity.HintsFieldManager))...)
	}
	err := applyHint()
	tookOver := ""
	if apierrors.IsConflict(err) {
		tookOver = fmt.Sprintf(" (taken over from %s)", conflictingManagers(err))
		err = applyHint(client.ForceOwnership)
	}
	if err != nil {
		return fmt.Errorf("applying %s to %s: %w", applyset.GroupKindsAnnotation, klog.KObj(parent), err)
	}
	hintResyncs.WithLabelValues(v.Parent.Tooling.Name).Inc()
	r.Recorder.Eventf(parent, nil, "Normal", ReasonHintsResynced, "Resync", "Set %s to %q to cover the kinds of its %d members%s",
		applyset.GroupKindsAnnotation, v.DesiredHint(), len(v.Members)-len(v.Unvouched), tookOver)
	return nil
}

// conflictingManagers names the field managers of an apply conflict.
func conflictingManagers(err error) string {
	if managers := apply.ConflictManagers(err); len(managers) > 0 {
		return strings.Join(managers, ", ")
	}
	return "another field manager"
}

// report publishes the verdict: metrics always, Events only when the findings
// changed since they were last reported, so that a steady problem is not
// repeated on every resync.
func (r *Reconciler) report(obj *metav1.PartialObjectMetadata, req membership.ParentRef, v membership.Verdict) {
	state := "clean"
	switch {
	case !v.Parent.Trusted():
		state = "untrusted"
	case !v.Clean():
		state = "problem"
	}
	r.states.set(req, parentState{tooling: toolingName(v.Parent), state: state, members: len(v.Members)})

	fingerprint := fmt.Sprint(v.Problems, v.Parent.Tooling)
	if last, ok := r.reported.Load(req); ok && last == fingerprint {
		return
	}
	r.reported.Store(req, fingerprint)
	for _, p := range v.Problems {
		r.Recorder.Eventf(obj, nil, "Warning", p.Reason, "Verify", "%s", p.Message)
	}
	if v.Clean() && !identity.Owns(v.Parent.Tooling) && !r.RepairTooling.Has(v.Parent.Tooling.Name) {
		r.Recorder.Eventf(obj, nil, "Normal", applyset.ReasonForeignTooling, "Verify",
			"Managed by %s; verified with %d members and left unchanged", v.Parent.Tooling, len(v.Members))
	} else if v.Clean() {
		r.Recorder.Eventf(obj, nil, "Normal", ReasonVerified, "Verify", "Verified with %d members", len(v.Members))
	}
}

func toolingName(p applyset.Parent) string {
	if p.Tooling.Name == "" {
		return "unknown"
	}
	return p.Tooling.Name
}

func withoutReason(problems []applyset.Problem, reason string) []applyset.Problem {
	out := problems[:0:0]
	for _, p := range problems {
		if p.Reason != reason {
			out = append(out, p)
		}
	}
	return out
}

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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// appliedState is what the last full reconcile of a set applied: a set that
// since only waits for its members may look at those members alone.
type appliedState struct {
	generation int64
	sources    string
	at         time.Time
}

// sourcesVersion names the versions of the set's sources, from the cache of
// their metadata the set's watches keep: no request.
func (r *Reconciler) sourcesVersion(ctx context.Context, set applyv1alpha1.Set) string {
	var b strings.Builder
	for _, src := range set.GetSources() {
		if src.OCI != nil {
			// Its artifact is fetched again by the next full reconcile.
			b.WriteString(src.OCI.URL + ":" + src.OCI.Tag + "@" + ptr.Deref(src.OCI.Digest, "") + "/" + src.Path + ";")
			continue
		}
		if src.Flux != nil {
			// Only the set's identity may read the object; the next full
			// reconcile reads it and fetches its artifact again.
			b.WriteString(string(src.Flux.Kind) + "/" + src.Namespace + "/" + src.Flux.Name + "/" + src.Path + ";")
			continue
		}
		meta := &metav1.PartialObjectMetadata{}
		meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(string(src.Kind)))
		version := "absent"
		if err := r.client.Get(ctx, client.ObjectKey{Namespace: src.Namespace, Name: src.Name}, meta); err == nil {
			version = meta.ResourceVersion
		}
		b.WriteString(string(src.Kind) + "/" + src.Namespace + "/" + src.Name + "@" + version + ";")
	}
	return b.String()
}

// remember records a full reconcile that applied the set.
func (r *Reconciler) remember(ctx context.Context, set applyv1alpha1.Set, o outcome) {
	key := client.ObjectKeyFromObject(set)
	if o.err != nil || o.dryRun || o.waits() {
		r.applied.Delete(key)
		return
	}
	r.applied.Store(key, appliedState{generation: set.GetGeneration(), sources: r.sourcesVersion(ctx, set), at: o.now})
}

// forget drops what the reconciler keeps about a set it no longer sees:
// the set is gone, or its labels left this shard's --watch-label-selector
// and another shard reconciles it now. Nothing in the cluster is touched;
// releasing the members is the finalizer's work, on the shard that sees the
// set being deleted.
func (r *Reconciler) forget(key client.ObjectKey) {
	r.applied.Delete(key)
	r.written.Delete(key)
	r.unrecorded.Delete(key)
	forgetMetricsOf(r.groupKind.Kind, key)
	if r.watches != nil {
		r.watches.Release(setKey{kind: applyv1alpha1.SetKind(r.groupKind.Kind), NamespacedName: key})
	}
}

// recheck looks again only at the members a set waits for, when nothing
// else can have changed (see waitingOnly): a list of phases over the scope
// apply's phases run on. Reading them is all it costs. It reports false
// when a full reconcile is needed, which then says what stopped this one.
func (r *Reconciler) recheck(ctx context.Context, rec *record) (outcome, bool) {
	s := r.newScope(rec)
	for _, p := range []phase{r.waitingOnlyPhase, r.checksPhase, r.actorPhase, r.enginePhase, r.judgeWaitingPhase} {
		if !p(ctx, s) {
			return outcome{}, false
		}
	}
	return s.o, true
}

func (r *Reconciler) waitingOnlyPhase(ctx context.Context, s *scope) bool {
	var ok bool
	s.waiting, ok = r.waitingOnly(ctx, s.set)
	return ok
}

// judgeWaitingPhase reads the members the set waits for, as its identity,
// and judges them with its checks; a member gone needs the full apply.
func (r *Reconciler) judgeWaitingPhase(ctx context.Context, s *scope) bool {
	objects, err := s.engine.Read(ctx, s.waiting)
	if err != nil {
		return false
	}
	judged := &memberHealth{}
	judged.summary.Current = int(ptr.Deref(s.set.GetSetStatus().Health.Current, 0))
	for _, ref := range s.waiting {
		obj := objects[ref]
		if obj == nil {
			return false // a member went away: the apply puts it back
		}
		result := s.checker.Judge(obj)
		judged.summary.Add(result)
		if result.Status != "Current" {
			judged.unhealthy = append(judged.unhealthy, unhealthyMember{ref: ref, result: result})
		}
	}
	s.o.health, s.o.recheck = judged, true
	if s.checker.Exhausted() {
		s.o = failure(s.o, applyv1alpha1.ReasonBudgetExceeded, true, setrun.HealthBudgetError(r.healthCheckBudget()))
	}
	return true
}

// waitingOnly returns the members a set waits for, when a look at them is
// all the set needs: it waits for members (Progressing at its generation),
// status names every one of them, none waits to be applied, and the
// generation and sources are those of its last full apply, within its interval.
func (r *Reconciler) waitingOnly(ctx context.Context, set applyv1alpha1.Set) ([]apply.ObjectRef, bool) {
	status, spec := set.GetSetStatus(), set.GetCommonSpec()
	h, ready := status.Health, readyOf(status)
	if spec.DryRunEnabled() || h == nil || h.WaitingSince == nil || ready == nil || ready.Reason != applyv1alpha1.ReasonProgressing ||
		ready.ObservedGeneration != set.GetGeneration() ||
		len(h.Unhealthy) != int(ptr.Deref(h.InProgress, 0)+ptr.Deref(h.Failed, 0)+ptr.Deref(h.Other, 0)) {
		return nil, false
	}
	last, ok := r.applied.Load(client.ObjectKeyFromObject(set))
	if !ok {
		return nil, false
	}
	state := last.(appliedState)
	if state.generation != set.GetGeneration() || r.clock.Since(state.at) > r.interval(spec) || state.sources != r.sourcesVersion(ctx, set) {
		return nil, false
	}
	refs := make([]apply.ObjectRef, 0, len(h.Unhealthy))
	for _, u := range h.Unhealthy {
		if strings.HasPrefix(u.Message, notAppliedYet) {
			return nil, false // the next group is the full reconcile's to apply
		}
		refs = append(refs, apply.ObjectRef{GroupKind: schema.GroupKind{Group: u.Group, Kind: u.Kind}, Namespace: u.Namespace, Name: u.Name})
	}
	return refs, true
}

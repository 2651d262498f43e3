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
	"errors"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/health"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// scope is what one reconcile of a set has learned so far: each phase reads
// it and adds to it, and o is what the reconcile reports.
type scope struct {
	set     applyv1alpha1.Set
	rec     *record
	spec    *applyv1alpha1.CommonSpec
	parent  applyset.Parent
	checker *health.Checker
	act     actor
	engine  *apply.Engine
	sources client.Reader
	o       outcome
	// hold is the hold of the set's windows on its run; nil for none.
	hold *setrun.WindowHold
	// waiting are the members a recheck looks at; del what a deletion found.
	waiting []apply.ObjectRef
	del     deletion
}

// newScope is the scope of one reconcile of the set rec writes.
func (r *Reconciler) newScope(rec *record) *scope {
	set := rec.set
	spec := set.GetCommonSpec()
	key := r.parentKey(set)
	return &scope{set: set, rec: rec, spec: spec, parent: applyset.ParseParent(key, set.GetLabels(), set.GetAnnotations()),
		o: outcome{setID: key.ID(), dryRun: spec.DryRunEnabled(), now: r.now(), timeout: timeout(spec)}}
}

// phase is one step of a reconcile. It returns false when the set stops
// there; s.o then says why.
type phase func(ctx context.Context, s *scope) bool

// reconcileNormal runs the phases in order: check the parent and the health
// checks, work out whom the set acts as and that a policy checks its author
// may make it, hold it for approval or its dependencies or its delivery
// windows, then read, apply and prune it as that identity.
func (r *Reconciler) reconcileNormal(ctx context.Context, rec *record) outcome {
	s := r.newScope(rec)
	phases := []struct {
		name string
		run  phase
	}{{"check parent", checkParentPhase}, {"compile checks", r.checksPhase}, {"actor", r.actorPhase}, {"authority", r.authorityPhase},
		{"engine", r.enginePhase}, {"approval", r.approvalPhase}, {"dependencies", r.dependenciesPhase}, {"windows", r.windowsPhase},
		{"run", r.runPhase}}
	for _, p := range phases {
		ok := phaseSpan(ctx, p.name, s, p.run)
		r.counted(ctx, strings.ReplaceAll(p.name, " ", "-"))
		if !ok {
			break
		}
	}
	return s.o
}

// stop records a failure in s and ends the reconcile.
func (s *scope) stop(reason string, terminal bool, err error) bool {
	s.o = failure(s.o, reason, terminal, err)
	return false
}

func checkParentPhase(_ context.Context, s *scope) bool {
	if reason, err := checkParent(s.set, s.parent); err != nil {
		return s.stop(reason, true, err)
	}
	return true
}

func (r *Reconciler) checksPhase(_ context.Context, s *scope) bool {
	var err error
	if s.checker, err = setrun.Checker(s.spec.HealthChecks, r.healthCheckBudget()); err != nil {
		return s.stop(applyv1alpha1.ReasonInvalidHealthCheck, true, err)
	}
	return true
}

func (r *Reconciler) actorPhase(_ context.Context, s *scope) bool {
	var err error
	if s.act, err = r.actorOf(s.set); err != nil {
		return s.stop(applyv1alpha1.ReasonNoServiceAccount, true, err)
	}
	return true
}

func (r *Reconciler) enginePhase(ctx context.Context, s *scope) bool {
	var err error
	if s.engine, s.sources, err = r.engine(ctx, s.act); err != nil {
		return s.stop(applyv1alpha1.ReasonServiceAccountNotFound, false, err)
	}
	return true
}

func (r *Reconciler) approvalPhase(ctx context.Context, s *scope) bool {
	var err error
	if s.o, err = r.approvalOf(ctx, s.set, s.o); err != nil {
		return s.stop(applyv1alpha1.ReasonApprovalNotEnforced, false, err)
	}
	return true
}

// dependenciesPhase stops the set while one of its dependencies, a set or
// any object (objectdeps.go), is not ready, or cannot be judged. A preview
// does not wait.
func (r *Reconciler) dependenciesPhase(ctx context.Context, s *scope) bool {
	if s.o.dryRun {
		r.watches.Release(keyOf(s.set))
		return true
	}
	waiting, err := r.waitingOn(ctx, s.set, s.engine.Client)
	var denied *apply.AccessError
	switch {
	case errors.As(err, &denied):
		return s.stop(applyv1alpha1.ReasonAccessDenied, false, actorError(s.act, err))
	case err != nil:
		return s.stop(applyv1alpha1.ReasonDependencyCycle, true, err)
	}
	objects, err := r.objectsWaiting(ctx, s)
	switch {
	case errors.Is(err, errInvalidReadyExpr):
		return s.stop(applyv1alpha1.ReasonInvalidHealthCheck, true, err)
	case err != nil:
		return s.stop(applyv1alpha1.ReasonDependencyNotReady, false, err)
	}
	waiting = joinWaiting(waiting, objects)
	if waiting != "" {
		s.o.waitingFor, s.o.pollDependencies = waiting, objects.unwatched != ""
		return false
	}
	return true
}

// runPhase reads, applies and prunes the set through the one pipeline, then
// judges its members' health with the set's checks.
func (r *Reconciler) runPhase(ctx context.Context, s *scope) bool {
	members, lost, err := s.rec.load(ctx)
	if err != nil {
		return s.stop(applyv1alpha1.ReasonApplyFailed, false, err)
	}
	s.o.lostChunks = lost
	run := &setrun.Run{Mode: setrun.Apply, Set: s.set, Stored: s.set.GetSetStatus(), Members: members, Layout: r.layout(), Parent: s.parent,
		Engine: s.engine, Sources: s.sources, Mapper: r.mapper, Limits: r.limits, Artifacts: r.artifacts,
		Checker: s.checker, Approval: s.o.approvalMode(), Window: s.hold, Identity: s.act.String(), Writes: &setWrites{rec: s.rec}, Timed: r.timedIn(ctx)}
	res := run.Do(ctx)
	s.o = s.o.merge(res).mergeWindow(res.Window)
	if s.o.sources != nil {
		s.o.artifactChanges = declared.ArtifactChanges(s.set.GetSetStatus().Sources, s.o.sources)
	}
	s.o = judged(s.o, s.checker, r.healthCheckBudget(), s.spec)
	return s.o.err == nil
}

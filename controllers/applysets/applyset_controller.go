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

// Package applysets reconciles ApplySet and ClusterApplySet objects: it applies
// their declared objects with the apply engine, prunes what left the set, keeps
// the KEP-3659 parent contract on the object itself, and reports the plan and
// the outcome in status.
package applysets

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/replicas"
	"github.com/applyset-operator/applyset-operator/internal/requeue"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Reconciler reconciles one kind: ApplySet or ClusterApplySet.
type Reconciler struct {
	// Client reads and patches the sets (cached).
	Client client.Client
	// Reader reads sources uncached, so that Secrets are not cached.
	Reader client.Reader
	// Config is the operator's identity, impersonated from for serviceAccountName.
	Config *rest.Config
	Mapper meta.RESTMapper
	Scheme *runtime.Scheme
	// Recorder receives the Events about sets.
	Recorder events.EventRecorder
	// NewSet and NewSetList return an empty object and list of the reconciled kind.
	NewSet     func() applyv1alpha1.Set
	NewSetList func() applyv1alpha1.SetList
	// GroupKind is the reconciled kind.
	GroupKind schema.GroupKind
	// ToolingVersion is written into the tooling annotation: applyset-operator/<version>.
	ToolingVersion string
	// DefaultServiceAccount names the ServiceAccount, in its own namespace,
	// that an ApplySet naming none acts as.
	DefaultServiceAccount string
	// SingleTenant lets sets that name no ServiceAccount act as the operator
	// itself, with all its permissions.
	SingleTenant bool
	// Limits bound what one set may declare.
	Limits declared.Limits
	// Artifacts fetch oci sources, within the admin's host policy.
	Artifacts *declared.Artifacts
	// ApplyConcurrency bounds the requests one set has in flight; 0 means
	// apply.DefaultConcurrency.
	ApplyConcurrency int
	// ApprovalEnforced says whether the admission policy that lets only
	// approvers approve is in force (nil when it is), for sets under
	// approval; nil holds every such set.
	ApprovalEnforced func(context.Context, applyv1alpha1.Set) error
	// LegacyManagers are handed over to the set after its first apply of an
	// object (apply.Engine.LegacyManagers).
	LegacyManagers []string
	// MaxReconcileTime bounds one reconcile of a set; 0 means
	// DefaultMaxReconcileTime.
	MaxReconcileTime time.Duration
	// HealthCheckBudget bounds the CEL cost of a set's health checks in one
	// reconcile; 0 means setrun.DefaultHealthCheckBudget.
	HealthCheckBudget uint64

	clients     sync.Map            // impersonated user, or "" for the operator -> identityClients
	permissions *permissionAnswers  // shared by both kinds' reconcilers; nil asks every time
	inputs      *semaphore.Weighted // the memory the sets being reconciled may hold (inputs.go)
	applied     sync.Map            // set key -> appliedState of its last full reconcile
	gate        *replicas.Gate      // nil unless the replicas share the sets (replicas.go)
}

// Reconcile makes the cluster match one set, or previews it.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (result reconcile.Result, retErr error) {
	started := time.Now()
	defer func() { setReconcileDuration.WithLabelValues(r.GroupKind.Kind).Observe(time.Since(started).Seconds()) }()
	set := r.NewSet()
	if err := r.Client.Get(ctx, req.NamespacedName, set); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	ctx, done, stop, err := r.admit(ctx, req.NamespacedName)
	if stop != nil || err != nil {
		return ptr.Deref(stop, reconcile.Result{}), err
	}
	defer done()
	statusBefore := set.GetSetStatus().DeepCopy()
	defer func() {
		if equality.Semantic.DeepEqual(statusBefore, set.GetSetStatus()) {
			return // nothing new to report: a steady set costs no writes
		}
		if err := r.stillOwner(ctx, set); err != nil {
			retErr = errors.Join(retErr, fmt.Errorf("not writing status: %w", err))
			return
		}
		if err := r.writeStatus(ctx, set, statusBefore); client.IgnoreNotFound(err) != nil {
			retErr = errors.Join(retErr, fmt.Errorf("patching status: %w", err))
		}
	}()

	if !set.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, set)
	}
	spec := set.GetCommonSpec()
	if spec.Suspended() {
		setStatus(set.GetSetStatus(), set.GetGeneration(), outcome{suspended: true})
		return reconcile.Result{}, nil
	}

	before := readyOf(set.GetSetStatus()).DeepCopy()
	warnedBefore := slices.Clone(set.GetSetStatus().Warnings)
	foreignBefore := set.GetSetStatus().ForeignMembers.DeepCopy()
	o, onlyHealth := r.recheck(ctx, set)
	if !onlyHealth {
		weight := r.inputWeight(set)
		if err := r.inputs.Acquire(ctx, weight); err != nil {
			return reconcile.Result{}, err
		}
		o = withinTime(ctx, cmp.Or(r.MaxReconcileTime, DefaultMaxReconcileTime), func(ctx context.Context) outcome {
			return r.reconcileNormal(ctx, set)
		})
		r.inputs.Release(weight)
		r.remember(ctx, set, o)
	}
	setStatus(set.GetSetStatus(), set.GetGeneration(), o)
	r.recordOutcome(set, before, o)
	r.recordWarnings(set, warnedBefore)
	r.recordForeign(set, foreignBefore, o)
	recordMetrics(r.GroupKind.Kind, set, o)
	return r.result(ctx, set, o)
}

// result says when to look at the set again: soon while its members are on
// their way, at its interval when it is done, never for an error only a
// change of the set can fix, and with backoff for the others.
func (r *Reconciler) result(ctx context.Context, set applyv1alpha1.Set, o outcome) (reconcile.Result, error) {
	spec := set.GetCommonSpec()
	switch {
	case o.err == nil && o.health != nil && !o.health.allCurrent():
		// Waiting for the members: look again soon, without holding a worker.
		waited := o.now.Sub(set.GetSetStatus().Health.WaitingSince.Time)
		return reconcile.Result{RequeueAfter: requeue.Jitter(waitDelay(waited))}, nil
	case o.waitingFor != "":
		// Its dependencies' changes wake the set; the interval is a guard.
		return reconcile.Result{RequeueAfter: requeue.Jitter(interval(spec))}, nil
	case o.err == nil && o.pruned.Count(apply.Waiting) > 0:
		return reconcile.Result{RequeueAfter: requeue.Jitter(waitDelay(0))}, nil
	case o.err != nil && retriedAtInterval(set, o):
		log.FromContext(ctx).Info("Set cannot progress until it, what it reads or the cluster changes", "reason", o.reason, "error", o.err.Error())
		return reconcile.Result{RequeueAfter: requeue.Jitter(interval(spec))}, nil
	case o.err != nil && o.terminal:
		log.FromContext(ctx).Info("Set cannot progress until it changes", "reason", o.reason, "error", o.err.Error())
		return reconcile.Result{}, nil
	case o.err != nil:
		return reconcile.Result{}, o.err
	}
	return reconcile.Result{RequeueAfter: requeue.Jitter(interval(spec))}, nil
}

// reconcileNormal runs the pipeline: check the parent, work out whom the set
// acts as, read and check the inputs as that identity, then apply and prune.
func (r *Reconciler) reconcileNormal(ctx context.Context, set applyv1alpha1.Set) outcome {
	spec := set.GetCommonSpec()
	key := r.parentKey(set)
	o := outcome{setID: key.ID(), dryRun: spec.DryRunEnabled(), now: time.Now(), timeout: timeout(spec)}
	parent := applyset.ParseParent(key, set.GetLabels(), set.GetAnnotations())
	if reason, err := checkParent(set, parent); err != nil {
		return failure(o, reason, true, err)
	}
	checker, err := setrun.Checker(spec.HealthChecks, r.healthCheckBudget())
	if err != nil {
		return failure(o, applyv1alpha1.ReasonInvalidHealthCheck, true, err)
	}
	act, err := r.actorOf(set)
	if err != nil {
		return failure(o, applyv1alpha1.ReasonNoServiceAccount, true, err)
	}
	engine, sources, err := r.engine(ctx, act)
	if err != nil {
		return failure(o, applyv1alpha1.ReasonServiceAccountNotFound, false, err)
	}
	if o, err = r.approvalOf(ctx, set, o); err != nil {
		return failure(o, applyv1alpha1.ReasonApprovalNotEnforced, false, err)
	}
	if o, wait := r.awaitDependencies(ctx, set, engine.Client, act, o); wait {
		return o
	}
	run := &setrun.Run{Mode: setrun.Apply, Set: set, Stored: set.GetSetStatus(), Parent: parent, Engine: engine, Sources: sources,
		Mapper: r.Mapper, Limits: r.Limits, Artifacts: r.Artifacts, Checker: checker, Approval: o.approvalMode(),
		Identity: act.String(), Writes: &setWrites{r: r, set: set}}
	o = o.merge(run.Do(ctx))
	if o.sources != nil {
		o.artifactChanges = declared.ArtifactChanges(set.GetSetStatus().Sources, o.sources)
	}
	return judged(o, checker, r.healthCheckBudget(), spec)
}

// awaitDependencies reports, with true, an outcome that stops the set here:
// one of its dependencies is not Ready, or cannot be judged. A preview does
// not wait.
func (r *Reconciler) awaitDependencies(ctx context.Context, set applyv1alpha1.Set, reader client.Reader, act actor, o outcome) (outcome, bool) {
	if o.dryRun {
		return o, false
	}
	waiting, err := r.waitingOn(ctx, set, reader)
	var denied *apply.AccessError
	switch {
	case errors.As(err, &denied):
		return failure(o, applyv1alpha1.ReasonAccessDenied, false, actorError(act, err)), true
	case err != nil:
		return failure(o, applyv1alpha1.ReasonDependencyCycle, true, err), true
	case waiting != "":
		o.waitingFor = waiting
		return o, true
	}
	return o, false
}

// actorError says who lacked a permission, when that is what went wrong.
func actorError(act actor, err error) error {
	var denied *apply.AccessError
	if errors.As(err, &denied) {
		return fmt.Errorf("%s %w", act, err)
	}
	return err
}

// failureReason is ReasonAccessDenied for a missing permission, otherwise fallback.
func failureReason(err error, fallback string) string {
	var denied *apply.AccessError
	if errors.As(err, &denied) {
		return applyv1alpha1.ReasonAccessDenied
	}
	return fallback
}

func timeout(spec *applyv1alpha1.CommonSpec) time.Duration {
	if spec.Timeout == nil || spec.Timeout.Duration <= 0 {
		return 5 * time.Minute
	}
	return spec.Timeout.Duration
}

func interval(spec *applyv1alpha1.CommonSpec) time.Duration {
	if spec.Interval == nil || spec.Interval.Duration <= 0 {
		return 10 * time.Minute
	}
	return spec.Interval.Duration
}

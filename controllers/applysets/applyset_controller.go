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
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/replicas"
	"github.com/applyset-operator/applyset-operator/internal/reqcount"
	"github.com/applyset-operator/applyset-operator/internal/requeue"
	"github.com/applyset-operator/applyset-operator/internal/tracing"
	"github.com/applyset-operator/applyset-operator/internal/windows"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// Reconciler reconciles one kind: ApplySet or ClusterApplySet.
type Reconciler struct {
	// client reads and patches the sets (cached); reader reads sources
	// uncached, so that Secrets are not cached.
	client client.Client
	reader client.Reader
	// config is the operator's identity, impersonated from for serviceAccountName.
	config   *rest.Config
	mapper   meta.RESTMapper
	scheme   *runtime.Scheme
	recorder events.EventRecorder
	// newSet and newSetList return an empty object and list of the reconciled kind.
	newSet     func() applyv1alpha1.Set
	newSetList func() applyv1alpha1.SetList
	groupKind  schema.GroupKind
	opts       Options
	// limits bound what one set may declare; artifacts fetch oci and flux
	// sources, within the admin's host policy.
	limits    declared.Limits
	artifacts *declared.Artifacts
	// enforced says whether the admission policy that lets only approvers
	// approve is in force (nil when it is), for sets under approval.
	enforced func(context.Context, applyv1alpha1.Set) error
	// overrides, likewise, says whether only approvers can write the
	// window-override annotation.
	overrides func(context.Context, applyv1alpha1.Set) error
	// authority says whether the admission policies that keep a set's
	// author from pointing it past their rights are in force for it.
	authority func(ctx context.Context, set applyv1alpha1.Set, defaultAccount string) error
	// chunksGuarded says whether only the operator can write inventory
	// chunks in a namespace (nil when it can).
	chunksGuarded func(ctx context.Context, namespace string) error

	clients      sync.Map            // impersonated user, or "" for the operator -> identityClients
	permissions  *permissionAnswers  // shared by both kinds' reconcilers; nil asks every time
	inputs       *semaphore.Weighted // the memory the sets being reconciled may hold (budget.go)
	applied      sync.Map            // set key -> appliedState of its last full reconcile
	written      sync.Map            // set key -> resourceVersion of the reconciler's last write of it (fresh.go)
	unrecorded   sync.Map            // set key -> pending changes of its record no write recorded (commit.go)
	gate         *replicas.Gate      // nil unless the replicas share the sets (replicas.go)
	clock        clock.PassiveClock  // the time every decision is judged by (windows.go)
	decisions    *windows.Cache      // the windows' decisions, by the windows; shared by both kinds
	watches      *dependencyWatches  // wake sets waiting for objects (depwatch.go); shared by both kinds
	policyWrites *policyWrites       // when a guard policy was last written (policywake.go); shared by both kinds
}

// Reconcile makes the cluster match one set, or previews it.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (result reconcile.Result, retErr error) {
	started := time.Now()
	defer func() { setReconcileDuration.WithLabelValues(r.groupKind.Kind).Observe(time.Since(started).Seconds()) }()
	ctx, span := r.traceReconcile(ctx, req)
	defer span.End()
	ctx, _ = reqcount.Into(ctx)
	set, err := r.read(ctx, req.NamespacedName)
	if err != nil {
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
	rec := r.newRecord(set)
	rec.run.traceID = tracing.TraceID(ctx)
	var changed changes // what the run did to the set's record
	defer func() {
		if err := rec.commit(ctx, changed); err != nil {
			retErr = errors.Join(retErr, err)
		}
	}()

	if !set.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, rec)
	}
	spec := set.GetCommonSpec()
	if spec.Suspended() {
		setStatus(set.GetSetStatus(), set.GetGeneration(), outcome{suspended: true})
		return reconcile.Result{}, nil
	}

	before := reportedOf(set)
	o, onlyHealth := r.recheck(ctx, rec)
	r.counted(ctx, "recheck")
	if !onlyHealth {
		weight := r.inputWeight(set)
		if err := r.inputs.Acquire(ctx, weight); err != nil {
			return reconcile.Result{}, err
		}
		o = withinTime(ctx, cmp.Or(r.opts.MaxReconcileTime, MaxReconcileTimeFor(r.limits.Objects)), func(ctx context.Context) outcome {
			return r.reconcileNormal(ctx, rec)
		})
		r.inputs.Release(weight)
		rec.ran(o)
		endReconcile(span, set.GetGeneration(), o)
		o = r.placeInventory(set, o)
		changed = changes{next: o.inventory, placed: o.placed}
		r.remember(ctx, set, o)
	}
	r.report(ctx, set, before, o)
	return r.result(ctx, set, o)
}

// result says when to look at the set again: soon while its members are on
// their way, at its interval when it is done, and after a failure as
// afterFailure says.
func (r *Reconciler) result(ctx context.Context, set applyv1alpha1.Set, o outcome) (reconcile.Result, error) {
	spec := set.GetCommonSpec()
	switch {
	case o.err == nil && o.health != nil && !o.health.allCurrent():
		// Waiting for the members: look again soon, without holding a worker.
		waited := o.now.Sub(set.GetSetStatus().Health.WaitingSince.Time)
		return reconcile.Result{RequeueAfter: requeue.Jitter(waitDelay(waited))}, nil
	case o.held():
		// Its windows hold it: look again when they let it apply.
		return reconcile.Result{RequeueAfter: untilWindowChange(o, r.interval(spec))}, nil
	case o.waitingFor != "" && o.pollDependencies:
		// Some dependency's changes cannot wake the set: it looks again, less often the longer it waits.
		return reconcile.Result{RequeueAfter: requeue.Jitter(waitDelay(waitedAs(set, applyv1alpha1.ReasonDependencyNotReady, o.now)))}, nil
	case o.waitingFor != "":
		// Its dependencies' changes wake the set; the interval is a guard.
		return reconcile.Result{RequeueAfter: requeue.Jitter(r.interval(spec))}, nil
	case o.err == nil && o.pruned.Count(apply.Waiting) > 0:
		// A member that does not go (a finalizer that never clears) must
		// not make the set look every two seconds for ever.
		return reconcile.Result{RequeueAfter: requeue.Jitter(waitDelay(waitedAs(set, applyv1alpha1.ReasonPruning, o.now)))}, nil
	case o.err != nil:
		return r.afterFailure(ctx, set, o)
	}
	return reconcile.Result{RequeueAfter: requeue.Jitter(r.interval(spec))}, nil
}

// afterFailure says when a set that failed looks again: soon when it waits
// for a guard policy that was just written, at its interval when what it
// waits for is outside it, never for an error only a change of the set can
// fix, and with backoff for the others.
func (r *Reconciler) afterFailure(ctx context.Context, set applyv1alpha1.Set, o outcome) (reconcile.Result, error) {
	if delay, soon := r.policyRetry(o); soon {
		log.FromContext(ctx).Info("Set held for an admission policy looks again soon, as one was written", "reason", o.reason, "after", delay)
		return reconcile.Result{RequeueAfter: requeue.Jitter(delay)}, nil
	}
	switch {
	case retriedAtInterval(set, o):
		log.FromContext(ctx).Info("Set cannot progress until it, what it reads or the cluster changes", "reason", o.reason, "error", o.err.Error())
		return reconcile.Result{RequeueAfter: requeue.Jitter(r.interval(set.GetCommonSpec()))}, nil
	case o.terminal:
		log.FromContext(ctx).Info("Set cannot progress until it changes", "reason", o.reason, "error", o.err.Error())
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, o.err
}

// actorError says who lacked a permission, when that is what went wrong.
func actorError(act actor, err error) error {
	var denied *apply.AccessError
	if errors.As(err, &denied) {
		return fmt.Errorf("%s %w", act, err)
	}
	return err
}

func timeout(spec *applyv1alpha1.CommonSpec) time.Duration {
	if spec.Timeout == nil || spec.Timeout.Duration <= 0 {
		return 5 * time.Minute
	}
	return spec.Timeout.Duration
}

// interval is how often the set is applied again: its spec.interval, never
// below the operator's floor. The schema refuses only what is absurd, and
// sets stored before a floor was raised stay valid: they run at the floor.
func (r *Reconciler) interval(spec *applyv1alpha1.CommonSpec) time.Duration {
	floor := cmp.Or(r.opts.MinInterval, DefaultMinInterval)
	if spec.Interval == nil || spec.Interval.Duration <= 0 {
		return max(10*time.Minute, floor)
	}
	return max(spec.Interval.Duration, floor)
}

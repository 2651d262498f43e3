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
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/requeue"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Finalizer holds a set until its members are pruned or disbanded.
const Finalizer = "apply.applyset.dev/members"

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
	// NewSet returns an empty object of the reconciled kind.
	NewSet func() applyv1alpha1.Set
	// GroupKind is the reconciled kind.
	GroupKind schema.GroupKind
	// ToolingVersion is written into the tooling annotation: applyset-operator/<version>.
	ToolingVersion string
	// DefaultServiceAccount is impersonated when a set names none: namespace/name,
	// or empty to act as the operator itself (single-tenant mode).
	DefaultServiceAccount string

	clients sync.Map // impersonated user -> client.Client
}

// Reconcile makes the cluster match one set, or previews it.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (result reconcile.Result, retErr error) {
	started := time.Now()
	defer func() { setReconcileDuration.WithLabelValues(r.GroupKind.Kind).Observe(time.Since(started).Seconds()) }()
	set := r.NewSet()
	if err := r.Client.Get(ctx, req.NamespacedName, set); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	base := set.DeepCopyObject().(client.Object)
	defer func() {
		if equality.Semantic.DeepEqual(base.(applyv1alpha1.Set).GetSetStatus(), set.GetSetStatus()) {
			return // nothing new to report: a steady set costs no writes
		}
		if err := r.Client.Status().Patch(ctx, set, client.MergeFrom(base)); client.IgnoreNotFound(err) != nil {
			retErr = errors.Join(retErr, fmt.Errorf("patching status: %w", err))
		}
	}()

	if !set.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, set)
	}
	if controllerutil.AddFinalizer(set, Finalizer) {
		if err := r.Client.Patch(ctx, set, client.MergeFrom(base)); err != nil {
			return reconcile.Result{}, fmt.Errorf("adding the finalizer: %w", err)
		}
		base = set.DeepCopyObject().(client.Object)
	}
	spec := set.GetCommonSpec()
	if spec.Suspended() {
		setStatus(set.GetSetStatus(), set.GetGeneration(), outcome{suspended: true})
		return reconcile.Result{}, nil
	}

	o := r.reconcileNormal(ctx, set)
	setStatus(set.GetSetStatus(), set.GetGeneration(), o)
	r.recordOutcome(set, o)
	recordMetrics(r.GroupKind.Kind, o)
	switch {
	case o.err != nil && o.terminal:
		log.FromContext(ctx).Info("Set cannot progress until it changes", "reason", o.reason, "error", o.err.Error())
		return reconcile.Result{}, nil
	case o.err != nil && o.reason == ReasonConflict:
		return reconcile.Result{RequeueAfter: requeue.Jitter(interval(spec))}, nil
	case o.err != nil:
		return reconcile.Result{}, o.err
	}
	return reconcile.Result{RequeueAfter: requeue.Jitter(interval(spec))}, nil
}

// reconcileNormal runs the pipeline: check the parent, read and check the
// inputs, widen the hints, apply, prune, narrow the hints.
func (r *Reconciler) reconcileNormal(ctx context.Context, set applyv1alpha1.Set) outcome {
	spec := set.GetCommonSpec()
	key := r.parentKey(set)
	o := outcome{setID: key.ID(), dryRun: spec.DryRunEnabled()}
	parent := applyset.ParseParent(key, set.GetLabels(), set.GetAnnotations())
	if reason, err := checkParent(set, parent); err != nil {
		return failure(o, reason, true, err)
	}
	scope := applyset.Scope{Namespace: set.GetNamespace(), AdditionalNamespaces: sets.New(spec.AdditionalNamespaces...)}
	objects, reason, err := r.readObjects(ctx, set, scope)
	if err != nil {
		return failure(o, reason, true, err)
	}
	for _, obj := range objects {
		o.declared = append(o.declared, obj.Ref())
	}
	return r.applyAndPrune(ctx, set, parent, scope, objects, o)
}

// readObjects gathers, decodes and checks the declared objects.
func (r *Reconciler) readObjects(ctx context.Context, set applyv1alpha1.Set, scope applyset.Scope) ([]apply.Object, string, error) {
	inputs, err := gatherInputs(ctx, r.Reader, set)
	if errors.Is(err, errSourceNotFound) {
		return nil, ReasonSourceNotFound, err
	}
	if err != nil {
		return nil, ReasonInvalidInput, err
	}
	objects, err := apply.Check(inputs, apply.Target{Scope: scope, DefaultNamespace: set.GetNamespace(), Mapper: r.Mapper})
	if err != nil {
		return nil, ReasonInvalidInput, err
	}
	return objects, "", nil
}

// applyAndPrune follows kubectl's protocol: widen the hints before applying, so
// that an interrupted apply leaves no member outside them; apply; prune only
// when every apply succeeded; then narrow the hints to the new set.
func (r *Reconciler) applyAndPrune(ctx context.Context, set applyv1alpha1.Set, parent applyset.Parent,
	scope applyset.Scope, objects []apply.Object, o outcome) outcome {
	spec := set.GetCommonSpec()
	engine, err := r.engine(set)
	if err != nil {
		return failure(o, ReasonApplyFailed, false, err)
	}
	kinds, namespaces := declaredKindsAndNamespaces(objects, set.GetNamespace())
	hintKinds := kinds.Union(currentKinds(parent))
	if !o.dryRun {
		if err := r.writeParent(ctx, set, hintKinds, namespaces.Union(parent.Scope.AdditionalNamespaces)); err != nil {
			return failure(o, ReasonApplyFailed, false, err)
		}
	}

	o.applied, err = engine.Apply(ctx, objects, apply.ApplyOptions{SetID: o.setID, DryRun: o.dryRun, Force: spec.ForceEnabled()})
	if err != nil {
		reason := ReasonApplyFailed
		if len(o.applied.Conflicts) > 0 {
			reason = ReasonConflict
		}
		return failure(o, reason, errors.Is(err, apply.ErrOverlap), err)
	}
	if !spec.PruneEnabled() {
		return o
	}
	o.pruned, err = engine.Prune(ctx, apply.PruneOptions{
		SetID: o.setID, ParentUID: string(set.GetUID()), Scope: scope, Kinds: hintKinds,
		Keep: sets.New(o.declared...), DryRun: o.dryRun,
	})
	if err != nil {
		return failure(o, ReasonPruneFailed, false, err)
	}
	if !o.dryRun {
		if err := r.writeParent(ctx, set, kinds, namespaces); err != nil {
			return failure(o, ReasonApplyFailed, false, err)
		}
	}
	return o
}

func failure(o outcome, reason string, terminal bool, err error) outcome {
	o.reason, o.terminal, o.err = reason, terminal, err
	return o
}

func currentKinds(p applyset.Parent) sets.Set[schema.GroupKind] {
	if p.GroupKinds == nil {
		return sets.New[schema.GroupKind]()
	}
	return p.GroupKinds
}

func declaredKindsAndNamespaces(objects []apply.Object, own string) (sets.Set[schema.GroupKind], sets.Set[string]) {
	kinds, namespaces := sets.New[schema.GroupKind](), sets.New[string]()
	for _, o := range objects {
		kinds.Insert(o.Ref().GroupKind)
		if ns := o.Object.GetNamespace(); ns != "" && ns != own {
			namespaces.Insert(ns)
		}
	}
	return kinds, namespaces
}

func interval(spec *applyv1alpha1.CommonSpec) time.Duration {
	if spec.Interval == nil || spec.Interval.Duration <= 0 {
		return 10 * time.Minute
	}
	return spec.Interval.Duration
}

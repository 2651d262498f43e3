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

package setrun

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/health"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// apply follows kubectl's protocol: widen the hints before applying, so
// that an interrupted apply leaves no member outside them; apply; prune only
// when every apply succeeded; then narrow the hints to what is left. The
// prune is planned first, across the namespaces and kinds of the current
// hints, the recorded members and the new set, so that a set that loses a
// namespace or a kind prunes its members there, and so that a missing
// permission stops the set before it changes anything. Only recorded
// members are pruned (inventory); whatever else carries the set's label is
// foreign and left alone.
func (r *Run) apply(ctx context.Context) (res Result) {
	started := time.Now()
	res, ok := r.read(ctx)
	r.timed("read", &started)
	if !ok {
		return res
	}
	res.DryRun = r.Mode.previews() || r.Set.GetCommonSpec().DryRunEnabled()
	inv := r.inventory()
	options := declared.NewOptions(r.Set, r.Parent, res.Objects, inv.Refs(), r.Parent.Key.ID(), res.DryRun)
	applyOpts := options.Apply
	applyOpts.Timed = r.Timed
	if !r.Mode.previews() {
		applyOpts.Ready = readyForDependents(r.Checker)
		applyOpts.Keep = r.Checker.Slim // all that Ready and the set's judging read of a member
		defer func() { res = recordInventory(res, inv) }()
	}
	prune, res, ok := r.planPrune(ctx, res, options, inv, applyOpts)
	r.timed("plan-prune", &started)
	if !ok {
		return res
	}
	res, ok = r.beforeWrites(ctx, res, inv, &applyOpts, prune, options.Widened)
	r.timed("before-writes", &started)
	if !ok {
		return res
	}
	var err error
	res.Applied, err = r.Engine.Apply(ctx, res.Objects, applyOpts)
	started = time.Now() // the engine told its own steps
	if err != nil {
		reason := applyv1alpha1.ReasonApplyFailed
		if len(res.Applied.Conflicts) > 0 {
			reason = applyv1alpha1.ReasonConflict
		}
		return r.failed(res, reason, errors.Is(err, apply.ErrOverlap), err)
	}
	if prune == nil || res.Applied.Count(apply.Waiting) > 0 {
		// Members that left the set keep their label, and the hints stay wide:
		// without prune, or until every object is applied.
		return r.done(res)
	}
	if res, ok = r.beforeDeletes(ctx, res, prune); !ok {
		return res
	}
	res.Pruned, err = r.Engine.ExecutePrune(ctx, prune)
	r.timed("prune", &started)
	if err != nil {
		return r.failed(res, applyv1alpha1.ReasonPruneFailed, false, err)
	}
	if r.Writes != nil && !res.DryRun {
		err := r.Writes.Hints(ctx, options.Narrowed(res.Pruned))
		r.timed("narrow-hints", &started)
		if err != nil {
			return res.fail(applyv1alpha1.ReasonApplyFailed, false, err)
		}
	}
	return r.done(res)
}

// timed tells Timed the time since *since, and starts the next step.
func (r *Run) timed(step string, since *time.Time) {
	if r.Timed != nil {
		r.Timed(step, time.Since(*since))
	}
	*since = time.Now()
}

// inventory is the set's recorded members; none for a set never stored.
func (r *Run) inventory() inventory.Inventory {
	if r.Stored == nil || r.Members == nil {
		return inventory.FromStatus(nil)
	}
	return *r.Members
}

// layout is where the run's inventory is kept: inventory.DefaultLayout
// unless the run says otherwise.
func (r *Run) layout() inventory.Layout {
	if r.Layout == (inventory.Layout{}) {
		return inventory.DefaultLayout
	}
	return r.Layout
}

// planPrune plans the prune before anything is written, when the set
// prunes and has been stored (a set never applied has no members). ok is
// false when res stops the run.
func (r *Run) planPrune(ctx context.Context, res Result, options declared.Options, inv inventory.Inventory, applyOpts apply.ApplyOptions) (
	*apply.PrunePlan, Result, bool) {
	if options.Prune == nil || r.Stored == nil {
		return nil, res, true
	}
	opts := *options.Prune
	opts.Proven = inv.Proof(identity.MembersFieldManager)
	opts.Cascade = inv.Cascade
	if r.Writes != nil {
		opts.BeforeDelete = r.Writes.BeforeDelete
	}
	prune, err := r.Engine.PlanPrune(ctx, opts)
	var denied *apply.AccessError
	if errors.As(err, &denied) {
		// Say at once everything the identity lacks, for the apply too.
		err = apply.JoinAccessErrors(err, r.Engine.CheckApply(ctx, res.Objects, applyOpts))
	}
	if err != nil {
		return nil, r.failed(res, applyv1alpha1.ReasonPruneFailed, false, err), false
	}
	res.Listed, res.Foreign, res.Deletes = prune.Proven(), prune.Foreign(), prune.Deletes()
	return prune, res, true
}

// beforeWrites decides, before the run writes anything, whether it may: the
// inventory must fit the set's status, an approved plan is spent first, and
// the hints widen before any member is applied. ok is false when res stops
// the run.
func (r *Run) beforeWrites(ctx context.Context, res Result, inv inventory.Inventory, applyOpts *apply.ApplyOptions,
	prune *apply.PrunePlan, widened declared.Hints) (Result, bool) {
	members, err := inventoryFits(r.Set, inv, res.Objects, r.layout())
	if err != nil {
		return res.fail(applyv1alpha1.ReasonBudgetExceeded, true, err), false
	}
	res, wait := r.gateChanges(ctx, res, applyOpts, prune)
	if wait {
		return res, false
	}
	if r.Writes == nil || res.DryRun {
		return res, true
	}
	if err := r.spend(ctx, res); err != nil {
		return res.fail(applyv1alpha1.ReasonApplyFailed, false, err), false
	}
	if members > r.layout().Inline {
		if err := r.Writes.Chunked(ctx); err != nil {
			return res.fail(applyv1alpha1.ReasonInventoryUnprotected, false, err), false
		}
	}
	if err := r.Writes.Hints(ctx, widened); err != nil {
		return res.fail(applyv1alpha1.ReasonApplyFailed, false, err), false
	}
	return res, true
}

// beforeDeletes decides whether the prune may delete: under Prune, an
// approved prune is spent first. ok is false when res stops the run.
func (r *Run) beforeDeletes(ctx context.Context, res Result, prune *apply.PrunePlan) (Result, bool) {
	res, wait := r.gateDeletes(res, prune)
	if wait {
		return res, false
	}
	if err := r.spend(ctx, res); err != nil {
		return res.fail(applyv1alpha1.ReasonPruneFailed, false, err), false
	}
	return res, true
}

// done is a run that went through: a preview names the plan the set's
// approval would wait for.
func (r *Run) done(res Result) Result {
	if r.Mode.previews() {
		return r.previewed(res)
	}
	return res
}

// recordInventory sets the set's members after a run that writes, from what
// it listed, applied and released, whether it succeeded or not: an object
// created before a later step failed is a member all the same.
func recordInventory(res Result, inv inventory.Inventory) Result {
	if res.DryRun {
		return res
	}
	declaredObjects := make(map[apply.ObjectRef]*unstructured.Unstructured, len(res.Objects))
	for _, obj := range res.Objects {
		declaredObjects[obj.Ref()] = obj.Object
	}
	next := inv.Next(inventory.Observed{Listed: res.Listed, Applied: res.Applied.Changes, Released: res.Pruned.Changes, Declared: declaredObjects})
	res.Inventory = &next
	return res
}

// readyForDependents judges, for the engine, whether an applied object
// others depend on is ready: by the set's checks, or by kstatus.
func readyForDependents(checker *health.Checker) func(*unstructured.Unstructured) (bool, string) {
	return func(obj *unstructured.Unstructured) (bool, string) {
		result := checker.Judge(obj)
		return result.Status == health.Current, string(result.Status) + ": " + result.Message
	}
}

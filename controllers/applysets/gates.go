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

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/declared"
	"github.com/applyset-operator/applyset-operator/pkg/inventory"
)

// beforeWrites decides, before the set writes anything, whether it may:
// its inventory must fit its status, an approved plan is spent first, and
// the hints widen before any member is applied. true stops the reconcile
// with o.
func (r *Reconciler) beforeWrites(ctx context.Context, set applyv1alpha1.Set, engine *apply.Engine, inv inventory.Inventory,
	objects []apply.Object, applyOpts *apply.ApplyOptions, prune *apply.PrunePlan, widened declared.Hints, o outcome) (outcome, bool) {
	if err := inventoryFits(set, inv, objects); err != nil {
		return failure(o, applyv1alpha1.ReasonBudgetExceeded, true, err), true
	}
	var wait bool
	if o, wait = gateChanges(ctx, set, engine, objects, applyOpts, prune, o); wait {
		return o, true
	}
	var err error
	if o, err = r.spendApproval(ctx, set, o); err != nil {
		return failure(o, applyv1alpha1.ReasonApplyFailed, false, err), true
	}
	if !o.dryRun {
		if err := r.writeParent(ctx, set, widened); err != nil {
			return failure(o, applyv1alpha1.ReasonApplyFailed, false, err), true
		}
	}
	return o, false
}

// beforeDeletes decides whether the prune may delete: under Prune, an
// approved prune is spent first. true stops the reconcile with o.
func (r *Reconciler) beforeDeletes(ctx context.Context, set applyv1alpha1.Set, prune *apply.PrunePlan, o outcome) (outcome, bool) {
	var wait bool
	if o, wait = gateDeletes(set, prune, o); wait {
		return o, true
	}
	var err error
	if o, err = r.spendApproval(ctx, set, o); err != nil {
		return failure(o, applyv1alpha1.ReasonPruneFailed, false, err), true
	}
	return o, false
}

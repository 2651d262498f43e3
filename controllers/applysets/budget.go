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
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/semaphore"
	"k8s.io/utils/clock"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/internal/timebudget"
)

// DefaultMaxReconcileTime is how long one reconcile of a set may hold a
// worker: six times the first apply of 5,000 objects on two cores.
const DefaultMaxReconcileTime = 2 * time.Minute

// reconcileTimePerObject is six times what the first apply of a set of
// 100,000 objects took an object on two cores (1.1 ms).
const reconcileTimePerObject = 7 * time.Millisecond

// MaxReconcileTimeFor is how long one reconcile may hold a worker where a
// set may declare maxObjects: DefaultMaxReconcileTime, or longer for the
// sets of a cluster whose admin raised --max-set-objects, so that raising it
// is all a set of 100,000 objects needs.
func MaxReconcileTimeFor(maxObjects int) time.Duration {
	return max(DefaultMaxReconcileTime, time.Duration(maxObjects)*reconcileTimePerObject)
}

// withinTime runs reconcile for at most budget of running time: past it,
// the reconcile's requests end with its context, and the outcome says the
// set is over its budget, naming it, rather than what its last request saw.
// ctx ending first (the operator stopping) is not the set's doing, nor is a
// wait for a build slot, which the slots' gate takes off the budget
// (timebudget.Pause).
func withinTime(ctx context.Context, budget time.Duration, reconcile func(context.Context) outcome) outcome {
	limited, cancel := timebudget.New(ctx, budget, clock.RealClock{})
	defer cancel()
	o := reconcile(limited)
	if ctx.Err() == nil && timebudget.Spent(limited) {
		return failure(o, applyv1alpha1.ReasonBudgetExceeded, true, fmt.Errorf("the reconcile took longer than the %s one reconcile "+
			"of a set may hold a worker (the operator's --max-reconcile-time), so it was stopped: %w", budget, o.err))
	}
	return o
}

func (r *Reconciler) healthCheckBudget() uint64 {
	return cmp.Or(r.opts.HealthCheckBudget, setrun.DefaultHealthCheckBudget)
}

// Sets read from sources may each hold up to Limits.Bytes of input while
// they are reconciled, decoded several times over; a set of inline objects
// holds at most what etcd stores of one object. Workers take a share of one
// budget for the length of their reconcile, so that many small sets run at
// once while the memory of large ones stays bounded as before: as many sets
// of the largest size as setsOfLargestSize.
const (
	setsOfLargestSize = 4
	inlineSetBytes    = 3 << 19 // 1.5 MiB, etcd's default limit on one object
)

// inputBudget is shared by the workers of one kind.
func newInputBudget(limits declared.Limits) *semaphore.Weighted {
	return semaphore.NewWeighted(setsOfLargestSize * limits.Bytes)
}

// inputWeight is the share of the budget a set's reconcile takes.
func (r *Reconciler) inputWeight(set applyv1alpha1.Set) int64 {
	if len(set.GetSources()) > 0 {
		return r.limits.Bytes
	}
	return min(inlineSetBytes, r.limits.Bytes)
}

// readsArtifacts tells whether one of the set's sources is an oci or flux source.
func readsArtifacts(set applyv1alpha1.Set) bool {
	return slices.ContainsFunc(set.GetSources(), func(src applyv1alpha1.ClusterSource) bool { return src.OCI != nil || src.Flux != nil })
}

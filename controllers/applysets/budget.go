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
	"errors"
	"fmt"
	"time"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
)

// DefaultMaxReconcileTime is how long one reconcile of a set may hold a
// worker: six times the first apply of 5,000 objects on two cores.
const DefaultMaxReconcileTime = 2 * time.Minute

// withinTime runs reconcile for at most budget: past it, the reconcile's
// requests end with its context, and the outcome says the set is over its
// budget, naming it, rather than what its last request saw. ctx ending
// first (the operator stopping) is not the set's doing.
func withinTime(ctx context.Context, budget time.Duration, reconcile func(context.Context) outcome) outcome {
	limited, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	o := reconcile(limited)
	if ctx.Err() == nil && errors.Is(limited.Err(), context.DeadlineExceeded) {
		return failure(o, applyv1alpha1.ReasonBudgetExceeded, true, fmt.Errorf("the reconcile took longer than the %s one reconcile "+
			"of a set may hold a worker (the operator's --max-reconcile-time), so it was stopped: %w", budget, o.err))
	}
	return o
}

func (r *Reconciler) healthCheckBudget() uint64 {
	return cmp.Or(r.opts.HealthCheckBudget, setrun.DefaultHealthCheckBudget)
}

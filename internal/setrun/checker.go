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
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/health"
)

// DefaultHealthCheckBudget bounds the CEL cost of a set's health checks in
// one reconcile: about a second of one core (a unit takes 100 to 150 ns,
// make bench BENCH=HealthCheckCost), two hundred times what a condition
// check of a thousand members costs, so that a set's expressions hold a
// worker no longer than that.
const DefaultHealthCheckBudget = 10_000_000

// HealthBudgetError says that the set's health checks spent budget.
func HealthBudgetError(budget uint64) error {
	return fmt.Errorf("the set's health checks cost more than %d (about %s of CPU) in one reconcile, so some members were "+
		"not judged; make spec.healthChecks cheaper, or split the set", budget, time.Duration(budget)*100*time.Nanosecond)
}

// Checker compiles the spec's health checks, within budget (0 for none).
func Checker(checks []applyv1alpha1.HealthCheck, budget uint64) (*health.Checker, error) {
	converted := make([]health.Check, 0, len(checks))
	for _, c := range checks {
		gv, err := schema.ParseGroupVersion(c.APIVersion)
		if err != nil {
			return nil, fmt.Errorf("spec.healthChecks: %w", err)
		}
		converted = append(converted, health.Check{GroupKind: schema.GroupKind{Group: gv.Group, Kind: c.Kind},
			Current: c.Current, Failed: c.Failed, InProgress: c.InProgress})
	}
	checker, err := health.NewChecker(converted)
	if err != nil {
		return nil, fmt.Errorf("spec.healthChecks: %w", err)
	}
	checker.Limit(budget)
	return checker, nil
}

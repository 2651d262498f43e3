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

// Package health judges whether an applied object works. Kinds Kubernetes
// knows, and those that follow its conventions for conditions, are judged by
// kstatus, the library Flux, Helm and kpt judge them with; kinds it cannot
// judge get CEL expressions, as Flux's healthCheckExprs do.
//
// The package is pure: it works on objects as read, and makes no API calls.
package health

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Status is an object's health.
type Status string

// The health of an object, as kstatus names it.
const (
	Current     Status = Status(status.CurrentStatus)
	InProgress  Status = Status(status.InProgressStatus)
	Failed      Status = Status(status.FailedStatus)
	terminating Status = Status(status.TerminatingStatus)
	Unknown     Status = Status(status.UnknownStatus)
)

// Result is the health of one object, with why.
type Result struct {
	Status  Status
	Message string
}

// Checker judges objects: by the CEL checks given for their kind, otherwise
// by kstatus. The zero Checker has no checks: kstatus judges every object.
type Checker struct {
	checks map[schema.GroupKind]*compiledCheck
	// budget bounds the CEL cost of all Judge calls together; 0 leaves it
	// unbounded. spent is what they cost so far.
	budget uint64
	spent  atomic.Uint64
}

// errBudgetSpent is what a Checker past its budget says of an object it
// no longer judges.
var errBudgetSpent = errors.New("the health checks spent their budget")

// Limit bounds the CEL cost of everything c judges from now on together,
// one evaluation's overshoot aside: past it, an object with a check is
// Unknown, not judged, and Exhausted says so. A unit of cost takes about
// 100 ns, so a budget of 10,000,000 is about a second of one core.
func (c *Checker) Limit(budget uint64) {
	c.budget = budget
}

// Spent is the CEL cost c's evaluations took so far.
func (c *Checker) Spent() uint64 { return c.spent.Load() }

// Exhausted reports whether c spent its budget, so that some object was
// not judged.
func (c *Checker) Exhausted() bool {
	return c.budget > 0 && c.spent.Load() >= c.budget
}

// spend records what an evaluation cost.
func (c *Checker) spend(cost uint64) { c.spent.Add(cost) }

// NewChecker compiles checks; the error names every check that does not
// compile. At most one check per kind.
func NewChecker(checks []Check) (*Checker, error) {
	c := &Checker{checks: map[schema.GroupKind]*compiledCheck{}}
	for i, check := range checks {
		if _, dup := c.checks[check.GroupKind]; dup {
			return nil, fmt.Errorf("health check %d: %s has a health check already", i, check.GroupKind)
		}
		compiled, err := compile(check)
		if err != nil {
			return nil, fmt.Errorf("health check %d (%s): %w", i, check.GroupKind, err)
		}
		c.checks[check.GroupKind] = compiled
	}
	return c, nil
}

// Judge returns the health of obj.
func (c *Checker) Judge(obj *unstructured.Unstructured) Result {
	if obj.GetDeletionTimestamp() != nil {
		return Result{Status: terminating, Message: "the object is being deleted"}
	}
	if check, ok := c.checks[obj.GroupVersionKind().GroupKind()]; ok {
		return check.judge(obj, c)
	}
	res, err := status.Compute(obj)
	if err != nil {
		return Result{Status: Unknown, Message: err.Error()}
	}
	message := res.Message
	if message == "" {
		message = "the object reports no message for being " + string(res.Status)
		if ready := readyCondition(obj); ready != "" {
			message = ready
		}
	}
	return Result{Status: Status(res.Status), Message: message}
}

// readyCondition describes the object's own Ready condition, when it has one.
func readyCondition(obj *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		cond, _ := c.(map[string]any)
		if cond["type"] != "Ready" {
			continue
		}
		text := fmt.Sprintf("Ready is %v", cond["status"])
		if reason, _ := cond["reason"].(string); reason != "" {
			text += ": " + reason
		}
		if msg, _ := cond["message"].(string); msg != "" {
			text += ": " + msg
		}
		return text
	}
	return ""
}

// Summary counts the health of a set's objects.
type Summary struct {
	Current, InProgress, Failed, Terminating, Unknown int
}

// Add counts one result.
func (s *Summary) Add(r Result) {
	switch r.Status {
	case Current:
		s.Current++
	case InProgress:
		s.InProgress++
	case Failed:
		s.Failed++
	case terminating:
		s.Terminating++
	default:
		s.Unknown++
	}
}

// Total is the number of objects counted.
func (s Summary) Total() int {
	return s.Current + s.InProgress + s.Failed + s.Terminating + s.Unknown
}

// String reads like 12/14 ready: the members that work, of all counted.
func (s Summary) String() string {
	return fmt.Sprintf("%d/%d ready", s.Current, s.Total())
}

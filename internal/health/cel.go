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

package health

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Check judges the objects of one kind with CEL expressions over the object:
// its top-level fields are variables (metadata, spec, status, and the object
// itself as self), a missing one is an empty map. The expressions are tried
// in the order inProgress, failed, current; the first that is true decides,
// and an object none decides is InProgress.
type Check struct {
	GroupKind schema.GroupKind
	// Current is required; Failed and InProgress are optional.
	Current, Failed, InProgress string
}

// costLimit bounds the work of one evaluation: an expression is written by
// whoever writes the set, and runs in the operator. A unit of CEL's cost
// takes about 100 ns (make bench BENCH=HealthCheckCost), so one evaluation
// stops within about 0.1 s.
const costLimit = 1_000_000

// variables are what an expression may name.
var variables = []string{"self", "metadata", "spec", "status"}

var env = func() *cel.Env {
	// Optional field access (status.?phase.orValue('')), as Kubernetes' own
	// CEL offers it, reads fields that a young object lacks.
	opts := make([]cel.EnvOption, 0, 1+len(variables))
	opts = append(opts, cel.OptionalTypes())
	for _, v := range variables {
		opts = append(opts, cel.Variable(v, cel.DynType))
	}
	e, err := cel.NewEnv(opts...)
	if err != nil {
		panic(fmt.Sprintf("the CEL environment of health checks: %v", err))
	}
	return e
}()

type compiledCheck struct {
	current, failed, inProgress cel.Program
	source                      Check
}

// compileCheck reports whether a check's expressions compile to booleans; the
// error names the expression that does not.
func compileCheck(check Check) error {
	_, err := compile(check)
	return err
}

func compile(check Check) (*compiledCheck, error) {
	if check.Current == "" {
		return nil, errors.New("current: an expression is required")
	}
	c := &compiledCheck{source: check}
	var errs []error
	for _, e := range []struct {
		name string
		expr string
		into *cel.Program
	}{{"current", check.Current, &c.current}, {"failed", check.Failed, &c.failed}, {"inProgress", check.InProgress, &c.inProgress}} {
		if e.expr == "" {
			continue
		}
		program, err := compileExpression(e.expr)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.name, err))
			continue
		}
		*e.into = program
	}
	return c, errors.Join(errs...)
}

func compileExpression(expr string) (cel.Program, error) {
	ast, issues := env.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return nil, issues.Err()
	}
	if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
		return nil, fmt.Errorf("the expression is of type %s, not bool", ast.OutputType())
	}
	return env.Program(ast, cel.CostLimit(costLimit), cel.EvalOptions(cel.OptTrackCost))
}

// judge evaluates the check's expressions on obj while budget has some
// left, and records what each cost in it.
func (c *compiledCheck) judge(obj *unstructured.Unstructured, budget *Checker) Result {
	vars := variablesOf(obj)
	for _, e := range []struct {
		program cel.Program
		status  Status
		expr    string
	}{{c.inProgress, InProgress, c.source.InProgress}, {c.failed, Failed, c.source.Failed}, {c.current, Current, c.source.Current}} {
		if e.program == nil {
			continue
		}
		if budget.Exhausted() {
			return Result{Status: Unknown, Message: "not judged: " + errBudgetSpent.Error()}
		}
		matched, cost, err := evaluate(e.program, vars)
		budget.spend(cost)
		if err != nil {
			return Result{Status: InProgress, Message: fmt.Sprintf("health check %q: %v", e.expr, err)}
		}
		if matched {
			return Result{Status: e.status, Message: fmt.Sprintf("health check %q is true", e.expr)}
		}
	}
	return Result{Status: InProgress, Message: fmt.Sprintf("waiting for %q", c.source.Current)}
}

// evaluate runs program and gives its result and what it cost, a failed
// evaluation's cost included.
func evaluate(program cel.Program, vars map[string]any) (bool, uint64, error) {
	out, details, err := program.Eval(vars)
	var cost uint64
	if details != nil && details.ActualCost() != nil {
		cost = *details.ActualCost()
	}
	if err != nil {
		return false, cost, err
	}
	if out.Type() != types.BoolType {
		return false, cost, fmt.Errorf("the result is %v, not a bool", out.Type())
	}
	b, ok := out.ConvertToNative(reflect.TypeFor[bool]())
	if ok != nil {
		return false, cost, ok
	}
	return b.(bool), cost, nil
}

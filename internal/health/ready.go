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
	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Condition is one CEL expression over an object, true when the object is
// ready: what a set waits for in its dependsOn. It sees the object as a
// health check does (self, metadata, spec, status).
type Condition struct {
	program cel.Program
	source  string
}

// CompileCondition compiles expr; the error says why it does not compile
// to a boolean.
func CompileCondition(expr string) (*Condition, error) {
	program, err := compileExpression(expr)
	if err != nil {
		return nil, err
	}
	return &Condition{program: program, source: expr}, nil
}

// String is the expression as written.
func (c *Condition) String() string { return c.source }

// Holds evaluates cond on obj, charging its cost to c's budget, which the
// set's health checks share: a set's expressions together stay within one
// budget. Past it, cond is not evaluated and the error says so.
func (c *Checker) Holds(cond *Condition, obj *unstructured.Unstructured) (bool, error) {
	if c.Exhausted() {
		return false, errBudgetSpent
	}
	holds, cost, err := evaluate(cond.program, variablesOf(obj))
	c.spend(cost)
	return holds, err
}

// variablesOf are the variables an expression over obj may name; a missing
// top-level field is an empty map.
func variablesOf(obj *unstructured.Unstructured) map[string]any {
	vars := map[string]any{"self": obj.Object}
	for _, v := range variables[1:] {
		value, ok := obj.Object[v]
		if !ok {
			value = map[string]any{}
		}
		vars[v] = value
	}
	return vars
}

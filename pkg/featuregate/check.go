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

package featuregate

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/environment"
)

// maxPolicyBytes is the largest policy the operator writes: etcd's default
// limit of a request (--max-request-bytes), below the API server's own limit
// of a request body (3 MiB).
const maxPolicyBytes = 3 << 19 // 1.5 MiB

// Check compiles every expression of p with the API server's compiler, as it
// does when the policies are written, and measures each policy: an error says
// what the API server would refuse. It returns the size of the largest policy
// as JSON. The API server does not hold admission policies to an estimated
// cost; it stops each evaluation at celconfig.PerCallLimit.
func Check(p Policies) (int, error) {
	compiler, err := admissionCompiler()
	if err != nil {
		return 0, err
	}
	largest := 0
	var errs []error
	compile := func(what string, accessor plugincel.ExpressionAccessor) {
		result := compiler.CompileCELExpression(accessor, plugincel.OptionalVariableDeclarations{HasAuthorizer: true, HasPatchTypes: true},
			environment.NewExpressions)
		if result.Error != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, result.Error))
		}
	}
	size := func(kind string, obj any) {
		data, err := json.Marshal(obj)
		if err != nil {
			errs = append(errs, err)
			return
		}
		if len(data) > maxPolicyBytes {
			errs = append(errs, fmt.Errorf("the %s is %d bytes; the API server stores at most %d", kind, len(data), maxPolicyBytes))
		}
		largest = max(largest, len(data))
	}
	if p.Mutating != nil {
		size("MutatingAdmissionPolicy", p.Mutating)
		for i, m := range p.Mutating.Spec.Mutations {
			if m.JSONPatch != nil {
				compile(fmt.Sprintf("mutation %d", i), &patch.JSONPatchCondition{Expression: m.JSONPatch.Expression})
			}
		}
		for _, c := range p.Mutating.Spec.MatchConditions {
			compile("match condition "+c.Name, &matchCondition{c})
		}
	}
	if p.Validating != nil {
		size("ValidatingAdmissionPolicy", p.Validating)
		for i, v := range p.Validating.Spec.Validations {
			compile(fmt.Sprintf("validation %d", i), &validating.ValidationCondition{Expression: v.Expression})
		}
	}
	return largest, errors.Join(errs...)
}

// matchCondition is the accessor of a policy's match condition.
type matchCondition struct{ admissionv1.MatchCondition }

func (m *matchCondition) GetExpression() string    { return m.Expression }
func (m *matchCondition) ReturnTypes() []*cel.Type { return []*cel.Type{cel.BoolType} }

// admissionCompiler is the API server's compiler of policy expressions.
var admissionCompiler = sync.OnceValues(func() (*plugincel.CompositedCompiler, error) {
	return plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})

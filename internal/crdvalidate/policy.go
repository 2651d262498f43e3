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

package crdvalidate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

// Policy is a ValidatingAdmissionPolicy that needs nothing but the object to
// judge it (no params, no authorizer), with its binding, evaluated offline as
// the API server evaluates it for a create.
type Policy struct {
	name, binding string
	groups        []string
	resources     []string
	conditions    []cel.Program
	variables     []namedProgram
	validations   []policyCheck
}

type namedProgram struct {
	name    string
	program cel.Program
}

type policyCheck struct {
	expression string
	program    cel.Program
	message    string
	messageExp cel.Program
}

// PolicyDenial is a policy's refusal, worded as the API server words it.
type PolicyDenial struct {
	Policy, Binding, Message string
}

func (d *PolicyDenial) Error() string {
	return fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.Policy, d.Binding, d.Message)
}

// newPolicy reads a policy and its binding from a multi-document YAML and
// compiles its expressions.
func newPolicy(data []byte) (*Policy, error) {
	var policy *admissionv1.ValidatingAdmissionPolicy
	var binding *admissionv1.ValidatingAdmissionPolicyBinding
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		var meta struct{ Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, err
		}
		switch meta.Kind {
		case "ValidatingAdmissionPolicy":
			policy = &admissionv1.ValidatingAdmissionPolicy{}
			err = yaml.UnmarshalStrict(doc, policy)
		case "ValidatingAdmissionPolicyBinding":
			binding = &admissionv1.ValidatingAdmissionPolicyBinding{}
			err = yaml.UnmarshalStrict(doc, binding)
		}
		if err != nil {
			return nil, err
		}
	}
	if policy == nil || binding == nil {
		return nil, fmt.Errorf("want a ValidatingAdmissionPolicy and its binding")
	}
	return compilePolicy(policy, binding)
}

func compilePolicy(policy *admissionv1.ValidatingAdmissionPolicy, binding *admissionv1.ValidatingAdmissionPolicyBinding) (*Policy, error) {
	env, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Env(environment.StoredExpressions)
	if err != nil {
		return nil, err
	}
	if env, err = env.Extend(cel.Variable("object", cel.DynType), cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", cel.DynType), cel.Variable("variables", cel.MapType(cel.StringType, cel.DynType))); err != nil {
		return nil, err
	}
	compile := func(expr string) (cel.Program, error) {
		ast, issues := env.Compile(expr)
		if issues.Err() != nil {
			return nil, fmt.Errorf("policy %s: %q: %w", policy.Name, expr, issues.Err())
		}
		return env.Program(ast)
	}
	p := &Policy{name: policy.Name, binding: binding.Name}
	if mc := policy.Spec.MatchConstraints; mc != nil {
		for _, r := range mc.ResourceRules {
			p.groups = append(p.groups, r.APIGroups...)
			p.resources = append(p.resources, r.Resources...)
		}
	}
	for _, c := range policy.Spec.MatchConditions {
		prg, err := compile(c.Expression)
		if err != nil {
			return nil, err
		}
		p.conditions = append(p.conditions, prg)
	}
	for _, v := range policy.Spec.Variables {
		prg, err := compile(v.Expression)
		if err != nil {
			return nil, err
		}
		p.variables = append(p.variables, namedProgram{name: v.Name, program: prg})
	}
	for _, v := range policy.Spec.Validations {
		val := policyCheck{expression: v.Expression, message: v.Message}
		if val.program, err = compile(v.Expression); err != nil {
			return nil, err
		}
		if v.MessageExpression != "" {
			if val.messageExp, err = compile(v.MessageExpression); err != nil {
				return nil, err
			}
		}
		p.validations = append(p.validations, val)
	}
	return p, nil
}

// Applies reports whether the policy matches creates of resource in group.
func (p *Policy) Applies(group, resource string) bool {
	return matches(p.groups, group) && matches(p.resources, resource)
}

func matches(list []string, value string) bool {
	for _, v := range list {
		if v == "*" || v == value {
			return true
		}
	}
	return false
}

// Evaluate judges a create of obj: nil when the policy admits it, a
// *PolicyDenial when it refuses it, another error when an expression fails.
func (p *Policy) Evaluate(obj *unstructured.Unstructured) error {
	vars := map[string]ref.Val{}
	activation := map[string]any{
		"object": obj.Object, "oldObject": nil,
		"request":   map[string]any{"operation": "CREATE", "name": obj.GetName(), "namespace": obj.GetNamespace()},
		"variables": vars,
	}
	for _, c := range p.conditions {
		out, _, err := c.Eval(activation)
		if err != nil {
			return fmt.Errorf("policy %s: a match condition: %w", p.name, err)
		}
		if out != types.True {
			return nil
		}
	}
	for _, v := range p.variables {
		out, _, err := v.program.Eval(activation)
		if err != nil {
			return fmt.Errorf("policy %s: variable %s: %w", p.name, v.name, err)
		}
		vars[v.name] = out
	}
	for _, v := range p.validations {
		out, _, err := v.program.Eval(activation)
		if err != nil {
			return fmt.Errorf("policy %s: %w", p.name, err)
		}
		if out == types.True {
			continue
		}
		return &PolicyDenial{Policy: p.name, Binding: p.binding, Message: v.messageOf(activation)}
	}
	return nil
}

// messageOf is the message the API server gives for a failed validation.
func (v policyCheck) messageOf(activation map[string]any) string {
	if v.messageExp != nil {
		if out, _, err := v.messageExp.Eval(activation); err == nil {
			if s, ok := out.Value().(string); ok && strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	if v.message != "" {
		return v.message
	}
	return "failed expression: " + strings.TrimSpace(v.expression)
}

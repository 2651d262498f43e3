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
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

var cronTabs = Target{CRD: "crontabs.stable.example.com", Group: "stable.example.com", Version: "v1", Plural: "crontabs"}

func TestPoliciesMatchTheStorageVersionAndStatus(t *testing.T) {
	p := gates(t, alpha("Replicas", false, ".spec.replicas"),
		Gate{Name: "Legacy", PreRelease: Deprecated, Default: ptr.To(true), FieldPaths: []string{".spec.image"}, DeprecationWarning: "use a pod template"},
	).Policies(cronTabs)
	if p.Mutating == nil || p.MutatingBinding == nil || p.Validating == nil || p.ValidatingBinding == nil {
		t.Fatalf("policies = %+v, want all four", p)
	}
	const name = "featuregates.crontabs.stable.example.com"
	for _, got := range []string{p.Mutating.Name, p.MutatingBinding.Name, p.MutatingBinding.Spec.PolicyName,
		p.Validating.Name, p.ValidatingBinding.Name, p.ValidatingBinding.Spec.PolicyName} {
		if got != name {
			t.Errorf("name %q, want %q", got, name)
		}
	}
	for kind, m := range map[string]*admissionv1.MatchResources{"mutating": p.Mutating.Spec.MatchConstraints, "validating": p.Validating.Spec.MatchConstraints} {
		rule := m.ResourceRules[0]
		if len(m.ResourceRules) != map[string]int{"mutating": 2, "validating": 1}[kind] || fmt.Sprint(rule.Operations) != "[CREATE UPDATE]" || fmt.Sprint(rule.APIGroups) != "[stable.example.com]" ||
			fmt.Sprint(rule.APIVersions) != "[v1]" || fmt.Sprint(rule.Resources) != "[crontabs crontabs/status]" {
			t.Errorf("%s rules = %+v", kind, m.ResourceRules)
		}
		if *m.MatchPolicy != admissionv1.Equivalent {
			t.Errorf("%s matchPolicy = %s", kind, *m.MatchPolicy)
		}
	}
	if *p.Mutating.Spec.FailurePolicy != admissionv1.Fail || p.Mutating.Spec.ReinvocationPolicy != admissionv1.IfNeededReinvocationPolicy {
		t.Errorf("mutating policy fails %s, reinvokes %s", *p.Mutating.Spec.FailurePolicy, p.Mutating.Spec.ReinvocationPolicy)
	}
	if len(p.Mutating.Spec.Mutations) != 1 || p.Mutating.Spec.Mutations[0].PatchType != admissionv1.PatchTypeJSONPatch {
		t.Errorf("mutations = %+v, want one JSON patch", p.Mutating.Spec.Mutations)
	}
	if *p.Validating.Spec.FailurePolicy != admissionv1.Ignore || fmt.Sprint(p.ValidatingBinding.Spec.ValidationActions) != "[Warn]" {
		t.Errorf("validating policy fails %s with actions %v, want Ignore and [Warn]", *p.Validating.Spec.FailurePolicy, p.ValidatingBinding.Spec.ValidationActions)
	}
	if v := p.Validating.Spec.Validations; len(v) != 1 || v[0].Message != "use a pod template" {
		t.Errorf("validations = %+v", v)
	}
}

func TestPoliciesOnlyForWhatActs(t *testing.T) {
	tests := []struct {
		name                string
		gates               []Gate
		mutations, warnings int
	}{
		{"every gate on: a policy that only answers probes", []Gate{alpha("A", true, ".spec.a"), alpha("B", true, ".spec.b")}, 1, 0},
		{"a child under a parent that is off is settled by the parent",
			[]Gate{alpha("Qux", true, ".spec.foo.qux"), alpha("Foo", false, ".spec.foo"), alpha("Bar", false, ".spec.foo.bar")}, 1, 0},
		{"a child that is off under a parent that is on", []Gate{alpha("Foo", true, ".spec.foo"), alpha("Qux", false, ".spec.foo.qux")}, 1, 0},
		{"one mutation per path", []Gate{alpha("A", false, ".spec.a", ".spec.b", ".status.c")}, 3, 0},
		{"a Deprecated gate that is off drops and does not warn",
			[]Gate{{Name: "Old", PreRelease: Deprecated, Default: ptr.To(false), FieldPaths: []string{".spec.old"}}}, 1, 0},
		{"a Deprecated gate under a parent that is off does not warn", []Gate{alpha("Foo", false, ".spec.foo"),
			{Name: "Old", PreRelease: Deprecated, Default: ptr.To(true), FieldPaths: []string{".spec.foo.old"}}}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := gates(t, tt.gates...).Policies(cronTabs)
			if p.Mutating == nil || p.MutatingBinding == nil {
				t.Fatalf("mutating policy %v, binding %v", p.Mutating != nil, p.MutatingBinding != nil)
			}
			if len(p.Mutating.Spec.Mutations) != tt.mutations {
				t.Errorf("%d mutations, want %d", len(p.Mutating.Spec.Mutations), tt.mutations)
			}
			if got := p.Validating != nil; got != (tt.warnings > 0) || got != (p.ValidatingBinding != nil) {
				t.Errorf("validating policy %v, binding %v", p.Validating != nil, p.ValidatingBinding != nil)
			}
		})
	}
}

// The seed's tables, through the compiled policy as the API server runs it.
func TestPolicySeedTables(t *testing.T) {
	foo := func(foo, qux bool) []Gate {
		return []Gate{alpha("Foo", foo, ".spec.foo"), alpha("Qux", qux, ".spec.foo.qux")}
	}
	replicas := func(on bool) []Gate { return []Gate{alpha("Replicas", on, ".spec.replicas")} }
	tests := []struct {
		name                  string
		gates                 []Gate
		request, stored, want string
	}{
		{"4-row table, row 1", replicas(false), "spec: {cron: x, replicas: 3}", "", "spec: {cron: x}"},
		{"4-row table, row 2", replicas(true), "spec: {cron: x, replicas: 3}", "", "spec: {cron: x, replicas: 3}"},
		{"4-row table, row 3", replicas(false), "spec: {cron: x, replicas: 3}", "spec: {replicas: 1}", "spec: {cron: x, replicas: 1}"},
		{"4-row table, row 4", replicas(true), "spec: {cron: x, replicas: 3}", "spec: {replicas: 1}", "spec: {cron: x, replicas: 3}"},
		{"4-row table, row 3, the request removes the field", replicas(false), "spec: {cron: x}", "spec: {replicas: 1}", "spec: {cron: x, replicas: 1}"},
		{"8-row table, row 1", foo(false, false), "spec: {foo: {baz: 2, qux: 3}}", "", "spec: {}"},
		{"8-row table, row 2", foo(false, true), "spec: {foo: {baz: 2, qux: 3}}", "", "spec: {}"},
		{"8-row table, row 3", foo(true, false), "spec: {foo: {baz: 2, qux: 3}}", "", "spec: {foo: {baz: 2}}"},
		{"8-row table, row 4", foo(true, true), "spec: {foo: {baz: 2, qux: 3}}", "", "spec: {foo: {baz: 2, qux: 3}}"},
		{"8-row table, row 5", foo(false, false), "spec: {foo: {baz: 2, qux: 3}}", "spec: {foo: {qux: 1}}", "spec: {foo: {qux: 1}}"},
		{"8-row table, row 6", foo(false, true), "spec: {foo: {baz: 2, qux: 3}}", "spec: {foo: {qux: 1}}", "spec: {foo: {qux: 1}}"},
		{"8-row table, row 7", foo(true, false), "spec: {foo: {baz: 2, qux: 3}}", "spec: {foo: {qux: 1}}", "spec: {foo: {baz: 2, qux: 1}}"},
		{"8-row table, row 8", foo(true, true), "spec: {foo: {baz: 2, qux: 3}}", "spec: {foo: {qux: 1}}", "spec: {foo: {baz: 2, qux: 3}}"},
		{"maps a drop empties go below the top level", []Gate{alpha("Deep", false, ".spec.a.b.c")},
			"spec: {a: {b: {c: 1}}, keep: {}}", "", "spec: {keep: {}}"},
		{"a restore creates the maps on its way", []Gate{alpha("Deep", false, ".spec.a.b.c")},
			"spec: {a: 1}", "spec: {a: {b: {c: [1, 2]}}}", "spec: {a: {b: {c: [1, 2]}}}"},
		{"a gated name that is a CEL keyword", []Gate{alpha("In", false, ".spec.in.namespace")},
			"spec: {in: {namespace: x}}", "", "spec: {}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := gates(t, tt.gates...)
			p := set.Policies(cronTabs)
			got := obj(t, tt.request)
			if p.Mutating != nil {
				var err error
				if got, err = evalPolicy(p.Mutating, obj(t, tt.request), obj(t, tt.stored)); err != nil {
					t.Fatal(err)
				}
			}
			if canonical(t, got) != canonical(t, obj(t, tt.want)) {
				t.Errorf("policy stores %s, want %s", canonical(t, got), canonical(t, obj(t, tt.want)))
			}
			dropped := obj(t, tt.request)
			set.Drop(dropped, obj(t, tt.stored))
			if canonical(t, dropped) != canonical(t, got) {
				t.Errorf("Drop stores %s, the policy %s", canonical(t, dropped), canonical(t, got))
			}
		})
	}
}

// A kept integer beyond 2^53 comes back as a string: the API server turns a
// JSON patch value into a protobuf Value, and CEL writes integers that a
// double cannot hold as strings. A schema that says integer then refuses the
// update; the webhook keeps the number. The README lists this difference.
func TestPolicyKeepsIntegersBeyondFloatPrecisionAsStrings(t *testing.T) {
	p := gates(t, alpha("Replicas", false, ".spec.replicas")).Policies(cronTabs)
	stored := map[string]any{"spec": map[string]any{"replicas": int64(1<<53 + 1)}}
	got, err := evalPolicy(p.Mutating, map[string]any{"spec": map[string]any{"replicas": int64(2)}}, stored)
	if err != nil {
		t.Fatal(err)
	}
	if r := got["spec"].(map[string]any)["replicas"]; r != "9007199254740993" {
		t.Errorf("kept replicas = %v (%T); want the string 9007199254740993", r, r)
	}
}

// Only a dry-run probe of the policy's own revision, on the CustomFeatureGates
// status, is refused; a request for the CRD, a probe of another revision and
// the same patch without dry run pass as before.
func TestPolicyAnswersItsProbe(t *testing.T) {
	for _, gs := range [][]Gate{{alpha("Replicas", false, ".spec.replicas")}, {alpha("Replicas", true, ".spec.replicas")}} {
		p := gates(t, gs...).Policies(cronTabs)
		other := gates(t, alpha("Replicas", true, ".spec.replicas"), alpha("Image", false, ".spec.image")).Policies(cronTabs)
		if p.Revision == "" || p.Revision == other.Revision {
			t.Fatalf("revisions %q and %q", p.Revision, other.Revision)
		}
		probe := func(revision string) map[string]any {
			return map[string]any{"metadata": map[string]any{"annotations": map[string]any{ProbeAnnotation: revision}}, "spec": map[string]any{}}
		}
		if _, err := evalRequest(p.Mutating, probeResource, true, probe(p.Revision), probe("")); err == nil || !strings.Contains(err.Error(), probeAnswerPath) {
			t.Errorf("%+v: the probe of the policy's revision was not refused: %v", gs, err)
		}
		for name, run := range map[string]func() (map[string]any, error){
			"another revision": func() (map[string]any, error) {
				return evalRequest(p.Mutating, probeResource, true, probe(other.Revision), probe(""))
			},
			"not a dry run": func() (map[string]any, error) {
				return evalRequest(p.Mutating, probeResource, false, probe(p.Revision), probe(""))
			},
			"a request for the CRD": func() (map[string]any, error) {
				return evalRequest(p.Mutating, testGVR, true, probe(p.Revision), nil)
			},
		} {
			if _, err := run(); err != nil {
				t.Errorf("%+v, %s: %v", gs, name, err)
			}
		}
	}
}

// The answers a probe can get: the policy's refusal, a wait, or an error that
// status reports.
func TestProbeAnswers(t *testing.T) {
	gr := probeResource.GroupResource()
	refusal := apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: "CustomFeatureGates"}, "x", nil)
	refusal.ErrStatus.Message = "policy 'featuregates.x' with binding 'featuregates.x' denied request: JSON Patch: remove " + probeAnswerPath
	tests := []struct {
		name         string
		err          error
		answer, wait bool
	}{
		{"the policy's refusal", refusal, true, true},
		{"another policy's refusal", apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: "CustomFeatureGates"}, "x", nil), false, true},
		{"the policy plugin does not know the schema yet", apierrors.NewServiceUnavailable("Resource kind not found"), false, true},
		{"forbidden", apierrors.NewForbidden(gr, "x", fmt.Errorf("no")), false, false},
		{"accepted", nil, false, false},
	}
	for _, tt := range tests {
		probe := policyProbe("featuregates.x")
		if got := probe.answered(tt.err); got != tt.answer {
			t.Errorf("%s: answered = %v", tt.name, got)
		}
		if got := tt.err != nil && probe.wait(tt.err); got != tt.wait {
			t.Errorf("%s: wait = %v", tt.name, got)
		}
		loaded, err := ReadPolicyProbe(tt.err, "featuregates.x")
		if loaded != tt.answer || (err != nil) != (tt.err != nil && !tt.wait) {
			t.Errorf("%s: ReadPolicyProbe = %v, %v", tt.name, loaded, err)
		}
	}
}

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
	"context"
	"fmt"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// newCompiler is the API server's compiler of policy expressions; building its
// environments costs more than the evaluations of a test.
var newCompiler = sync.OnceValues(func() (*plugincel.CompositedCompiler, error) {
	return plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})

// compiled caches evaluators by expression: type checking them is most of the
// cost of a run, and random gates repeat paths. Tests using it are not parallel.
var compiled = map[string]plugincel.MutatingEvaluator{}

var testGVR = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}

// evalPolicy runs the mutations of p on obj (old is nil on create) with the
// API server's own CEL environment and JSON patch code, one mutation after
// the other on the object the previous one returned, as the API server's
// dispatcher does. Schema defaulting, which follows each mutation there, is
// left out: the objects under test have no schema.
func evalPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy, obj, old map[string]any) (map[string]any, error) {
	return evalRequest(p, testGVR, false, obj, old)
}

// evalRequest is evalPolicy for a request for gvr, a dry run or not.
func evalRequest(p *admissionregistrationv1.MutatingAdmissionPolicy, gvr schema.GroupVersionResource, dryRun bool, obj, old map[string]any) (map[string]any, error) {
	compiler, err := newCompiler()
	if err != nil {
		return nil, err
	}
	opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true, HasPatchTypes: true}
	gvk := gvr.GroupVersion().WithKind("CronTab")
	op := admission.Create
	var oldObj runtime.Object
	if old != nil {
		op, oldObj = admission.Update, &unstructured.Unstructured{Object: withKind(old)}
	}
	cur := runtime.Object(&unstructured.Unstructured{Object: withKind(obj)})
	matches, err := matchConditionsHold(p, compiler, opts, admission.NewAttributesRecord(cur, oldObj, gvk, "default", "probe", gvr, "", op, nil, dryRun, nil), gvk)
	if err != nil || !matches {
		return obj, err
	}
	for i, m := range p.Spec.Mutations {
		if m.PatchType != admissionregistrationv1.PatchTypeJSONPatch || m.JSONPatch == nil {
			return nil, fmt.Errorf("mutation %d is not a JSON patch", i)
		}
		eval, ok := compiled[m.JSONPatch.Expression]
		if !ok {
			eval = compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, opts, environment.StoredExpressions)
			compiled[m.JSONPatch.Expression] = eval
		}
		attrs := admission.NewAttributesRecord(cur, oldObj, gvk, "default", "probe", gvr, "", op, nil, dryRun, nil)
		req := patch.Request{
			MatchedResource: gvr,
			VersionedAttributes: &admission.VersionedAttributes{
				Attributes: attrs, VersionedKind: gvk,
				VersionedObject: admission.NewLazyObject(cur), VersionedOldObject: admission.NewLazyObject(oldObj),
			},
			ObjectInterfaces: admission.NewObjectInterfacesFromScheme(runtime.NewScheme()),
		}
		if cur, err = patch.NewJSONPatcher(eval).Patch(context.Background(), req, celconfig.RuntimeCELCostBudget); err != nil {
			return nil, fmt.Errorf("mutation %d: %w", i, err)
		}
	}
	out := cur.(*unstructured.Unstructured).Object
	delete(out, "apiVersion")
	delete(out, "kind")
	delete(out, "metadata")
	return out, nil
}

// matchConditionsHold evaluates the policy's match conditions with the API
// server's own matcher: when one is false the API server skips the policy.
func matchConditionsHold(p *admissionregistrationv1.MutatingAdmissionPolicy, compiler *plugincel.CompositedCompiler,
	opts plugincel.OptionalVariableDeclarations, attrs admission.Attributes, gvk schema.GroupVersionKind) (bool, error) {
	if len(p.Spec.MatchConditions) == 0 {
		return true, nil
	}
	key := ""
	accessors := make([]plugincel.ExpressionAccessor, len(p.Spec.MatchConditions))
	for i := range p.Spec.MatchConditions {
		accessors[i] = (*matchconditions.MatchCondition)(&p.Spec.MatchConditions[i])
		key += p.Spec.MatchConditions[i].Expression + "\x00"
	}
	matcher, ok := matchers[key]
	if !ok {
		matcher = matchconditions.NewMatcher(compiler.CompileCondition(accessors, opts, environment.StoredExpressions),
			p.Spec.FailurePolicy, "policy", "validate", p.Name)
		matchers[key] = matcher
	}
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk,
		VersionedObject: admission.NewLazyObject(attrs.GetObject()), VersionedOldObject: admission.NewLazyObject(attrs.GetOldObject())}
	result := matcher.Match(context.Background(), versioned, nil, nil)
	return result.Matches, result.Error
}

// matchers caches the compiled match conditions of policies, as compiled does
// mutations.
var matchers = map[string]matchconditions.Matcher{}

// withKind copies obj with the type and name an object needs to be decoded.
func withKind(obj map[string]any) map[string]any {
	out := runtime.DeepCopyJSON(obj)
	out["apiVersion"], out["kind"] = "stable.example.com/v1", "CronTab"
	metadata, _ := out["metadata"].(map[string]any)
	if metadata == nil {
		metadata = map[string]any{}
	}
	metadata["name"], metadata["namespace"] = "probe", "default"
	out["metadata"] = metadata
	return out
}

// The API server skips the policy, and its JSON round trip of the object, for
// requests whose object and stored object hold no disabled field.
func TestPolicySkipsRequestsWithoutGatedFields(t *testing.T) {
	p := gates(t, alpha("Deep", false, ".spec.a.b"), alpha("On", true, ".spec.c")).Policies(cronTabs)
	compiler, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	gvk := testGVR.GroupVersion().WithKind("CronTab")
	spec := func(v map[string]any) map[string]any { return map[string]any{"spec": v} }
	tests := []struct {
		name     string
		obj, old map[string]any
		gvr      schema.GroupVersionResource
		want     bool
	}{
		{name: "create without gated fields", obj: spec(map[string]any{"x": int64(1)}), want: false},
		{name: "create with the disabled field", obj: spec(map[string]any{"a": map[string]any{"b": "v"}}), want: true},
		{name: "create with only the enabled field", obj: spec(map[string]any{"c": "v"}), want: false},
		{name: "a prefix that is not a map", obj: spec(map[string]any{"a": "v"}), want: false},
		{name: "a prefix without the field", obj: spec(map[string]any{"a": map[string]any{"z": "v"}}), want: false},
		{name: "update that drops a stored disabled field", obj: spec(map[string]any{}),
			old: spec(map[string]any{"a": map[string]any{"b": "v"}}), want: true},
		{name: "update with neither", obj: spec(map[string]any{"x": "v"}), old: spec(map[string]any{"x": "w"}), want: false},
		{name: "a probe", obj: spec(map[string]any{}), old: spec(map[string]any{}), gvr: probeResource, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gvr, op := testGVR, admission.Create
			if tt.gvr != (schema.GroupVersionResource{}) {
				gvr = tt.gvr
			}
			cur := &unstructured.Unstructured{Object: withKind(tt.obj)}
			var old runtime.Object
			if tt.old != nil {
				op, old = admission.Update, &unstructured.Unstructured{Object: withKind(tt.old)}
			}
			attrs := admission.NewAttributesRecord(cur, old, gvk, "default", "probe", gvr, "", op, nil, true, nil)
			got, err := matchConditionsHold(p.Mutating, compiler, opts, attrs, gvk)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("the policy applies: %v, want %v", got, tt.want)
			}
		})
	}
	largest := gates(t, largestGates(maxPaths, maxPathLength, maxPathDepth)...).Policies(cronTabs)
	if n := len(largest.Mutating.Spec.MatchConditions); n != 1 {
		t.Errorf("the largest gates have %d match conditions, want only the probe's: theirs would pass CEL's limit", n)
	}
}

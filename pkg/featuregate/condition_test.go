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
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
)

// The webhook's condition holds for a request with any gated path, on or
// off, in the object or the stored object, evaluated by the API server's
// own matcher; it is left out where it would not compile.
func TestWebhookCondition(t *testing.T) {
	gs := []Gate{alpha("Off", false, ".spec.a.b"), alpha("On", true, ".spec.c")}
	expr, ok := webhookCondition(gs)
	if !ok {
		t.Fatal("no condition for two short paths")
	}
	p := &admissionregistrationv1.MutatingAdmissionPolicy{Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
		MatchConditions: []admissionregistrationv1.MatchCondition{{Name: TouchesGatedFields, Expression: expr}},
	}}
	compiler, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	gvk := testGVR.GroupVersion().WithKind("CronTab")
	spec := func(v map[string]any) map[string]any { return map[string]any{"spec": v} }
	tests := []struct {
		name     string
		obj, old map[string]any
		want     bool
	}{
		{name: "no gated field", obj: spec(map[string]any{"x": "v"}), want: false},
		{name: "a disabled gate's field", obj: spec(map[string]any{"a": map[string]any{"b": "v"}}), want: true},
		{name: "an enabled gate's field, which may warn", obj: spec(map[string]any{"c": "v"}), want: true},
		{name: "only the stored object has it", obj: spec(map[string]any{}), old: spec(map[string]any{"a": map[string]any{"b": "v"}}), want: true},
		{name: "a prefix only", obj: spec(map[string]any{"a": map[string]any{"z": "v"}}), old: spec(map[string]any{}), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, cur := admission.Create, &unstructured.Unstructured{Object: withKind(tt.obj)}
			var old runtime.Object
			if tt.old != nil {
				op, old = admission.Update, &unstructured.Unstructured{Object: withKind(tt.old)}
			}
			attrs := admission.NewAttributesRecord(cur, old, gvk, "default", "probe", testGVR, "", op, nil, false, nil)
			got, err := matchConditionsHold(p, compiler, plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, attrs, gvk)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("sent to the webhook: %v, want %v", got, tt.want)
			}
		})
	}

	if _, ok := webhookCondition(largestGates(maxPaths, maxPathLength, maxPathDepth)); ok {
		t.Error("a condition for the largest gates, past CEL's limit")
	}
	if _, ok := webhookCondition(nil); ok {
		t.Error("a condition for no paths, which would send nothing")
	}
}

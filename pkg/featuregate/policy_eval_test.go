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

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
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

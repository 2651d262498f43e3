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
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	celcommon "k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	celmutation "k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/utils/ptr"
)

// The bounds of the CustomFeatureGates API (api/features/v1alpha1): paths in
// all gates, characters and names of one path.
const (
	maxPaths      = 64
	maxPathLength = 128
	maxPathDepth  = 6
)

// largestGates are the gates that compile into the largest policy the API
// allows: every path as long and deep as allowed, its first name the long one
// (each prefix of a path repeats it), none under another, all off.
func largestGates(paths, length, depth int) []Gate {
	var out []Gate
	for i := range paths {
		tail := strings.Repeat(".a", depth-2) + fmt.Sprintf(".n%03d", i)
		path := "." + strings.Repeat("x", length-1-len(tail)) + tail
		out = append(out, Gate{Name: fmt.Sprintf("G%d", i), PreRelease: Alpha, Enabled: ptr.To(false), FieldPaths: []string{path}})
	}
	return out
}

// The largest gates the API allows compile into policies the API server
// accepts and runs: every expression compiles with its compiler, the policy
// fits etcd, and each evaluation on the costliest request stays within the
// per-call limit. `go test -run LargestAllowed -v` prints the figures the
// README quotes.
func TestLargestAllowedGatesFitTheAPIServer(t *testing.T) {
	gs := largestGates(maxPaths, maxPathLength, maxPathDepth)
	if len(gs[0].FieldPaths[0]) != maxPathLength || strings.Count(gs[0].FieldPaths[0], ".") != maxPathDepth {
		t.Fatalf("not the largest path: %s", gs[0].FieldPaths[0])
	}
	p := gates(t, gs...).Policies(cronTabs)
	bytes, err := Check(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d paths of %d names and %d characters: %d mutations, policy %d bytes (limit %d)",
		maxPaths, maxPathDepth, maxPathLength, len(p.Mutating.Spec.Mutations), bytes, maxPolicyBytes)

	// The costliest request: every path in the request and the stored object,
	// with different values, so that every mutation takes its longest branch.
	request, stored := map[string]any{}, map[string]any{}
	for _, g := range gs {
		names := strings.Split(g.FieldPaths[0][1:], ".")
		put(request, names, "new")
		put(stored, names, "old")
	}
	var most, total int64
	for i := range p.Mutating.Spec.Mutations {
		cost := measureCost(t, p.Mutating.Spec.Mutations[i].JSONPatch.Expression, request, stored)
		most, total = max(most, cost), total+cost
	}
	t.Logf("runtime cost: at most %d per mutation (limit %d per call), %d for all %d", most, celconfig.PerCallLimit, total, len(p.Mutating.Spec.Mutations))
	if most > celconfig.PerCallLimit {
		t.Errorf("a mutation costs %d, over the API server's per-call limit %d", most, celconfig.PerCallLimit)
	}

	// Comparing the stored and the requested value costs a tenth of the
	// smaller one's size: a list of 100,000 items, about 200 kB of JSON.
	list := make([]any, 100_000)
	for i := range list {
		list[i] = int64(i)
	}
	names := strings.Split(gs[0].FieldPaths[0][1:], ".")
	changed := runtime.DeepCopyJSONValue(list).([]any)
	changed[len(changed)-1] = int64(-1)
	big, bigStored := map[string]any{}, map[string]any{}
	put(big, names, changed)
	put(bigStored, names, list)
	cost := measureCost(t, p.Mutating.Spec.Mutations[0].JSONPatch.Expression, big, bigStored)
	t.Logf("runtime cost with a list of 100,000 items at the path: %d", cost)
	if cost > celconfig.PerCallLimit {
		t.Errorf("a mutation of a large list costs %d, over the API server's per-call limit %d", cost, celconfig.PerCallLimit)
	}

	// What the estimator says where, as for admission policies, object has no
	// schema: any value may be as large as a request.
	est := estimateCost(t, p.Mutating.Spec.Mutations[1].JSONPatch.Expression)
	t.Logf("estimated cost of one mutation, object typed dyn and bounded by the request size: %d", est)
}

// Beyond the API's bounds the policy would be refused, and Check says so
// before it is written.
func TestCheckRefusesWhatTheAPIServerWould(t *testing.T) {
	if _, err := Check(gates(t, largestGates(1, 256, 64)...).Policies(cronTabs)); err == nil ||
		!strings.Contains(err.Error(), "exceeds limit") {
		t.Errorf("a path 64 names deep: %v, want the compiler's size limit", err)
	}
	if _, err := Check(gates(t, largestGates(512, 256, 2)...).Policies(cronTabs)); err == nil ||
		!strings.Contains(err.Error(), "the API server stores at most") {
		t.Errorf("512 paths of 256 characters: %v, want the size limit", err)
	}
}

// measureCost evaluates expr on a request (an update of stored) as the API
// server does, and returns the cost it charged.
func measureCost(t *testing.T, expr string, request, stored map[string]any) int64 {
	t.Helper()
	compiler, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	eval := compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: expr},
		plugincel.OptionalVariableDeclarations{HasAuthorizer: true, HasPatchTypes: true}, environment.StoredExpressions)
	if errs := eval.CompilationErrors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	gvk := testGVR.GroupVersion().WithKind("CronTab")
	obj, old := &unstructured.Unstructured{Object: withKind(request)}, &unstructured.Unstructured{Object: withKind(stored)}
	attrs := admission.NewAttributesRecord(obj, old, gvk, "default", "probe", testGVR, "", admission.Update, nil, false, nil)
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk,
		VersionedObject: admission.NewLazyObject(obj), VersionedOldObject: admission.NewLazyObject(old)}
	_, remaining, err := eval.ForInput(context.Background(), versioned, plugincel.CreateAdmissionRequest(attrs,
		metav1.GroupVersionResource(testGVR), metav1.GroupVersionKind(gvk)),
		plugincel.OptionalVariableBindings{}, nil, celconfig.RuntimeCELCostBudget)
	if err != nil {
		t.Fatal(err)
	}
	return celconfig.RuntimeCELCostBudget - remaining
}

// estimateCost runs the API server's CEL cost estimator on a mutation, with
// the variables its compiler declares (object and oldObject are dyn) and
// every size bounded by the largest request.
func estimateCost(t *testing.T, expr string) uint64 {
	t.Helper()
	requestType, namespaceType := plugincel.BuildRequestType(), plugincel.BuildNamespaceType()
	base, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			cel.Variable(plugincel.ObjectVarName, cel.DynType), cel.Variable(plugincel.OldObjectVarName, cel.DynType),
			cel.Variable(plugincel.NamespaceVarName, namespaceType.CelType()), cel.Variable(plugincel.RequestVarName, requestType.CelType()),
		},
		DeclTypes: []*apiservercel.DeclType{namespaceType, requestType},
	}, environment.StrictCostOpt)
	if err != nil {
		t.Fatal(err)
	}
	base, err = base.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        []cel.EnvOption{celcommon.ResolverEnvOption(&celmutation.DynamicTypeResolver{}), environment.UnversionedLib(library.JSONPatch)},
	})
	if err != nil {
		t.Fatal(err)
	}
	env, err := base.Env(environment.StoredExpressions)
	if err != nil {
		t.Fatal(err)
	}
	ast, issues := env.Compile(expr)
	if issues.Err() != nil {
		t.Fatal(issues.Err())
	}
	est, err := env.EstimateCost(ast, requestBound{})
	if err != nil {
		t.Fatal(err)
	}
	return est.Max
}

// requestBound sizes every value as the API server's estimator does where a
// schema says nothing: no larger than a request.
type requestBound struct{}

func (requestBound) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: uint64(celconfig.MaxRequestSizeBytes)}
}

func (requestBound) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return (&library.CostEstimator{}).EstimateCallCost(function, overloadID, target, args)
}

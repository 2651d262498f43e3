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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

func object(t testing.TB, manifest string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := utilyaml.Unmarshal([]byte(manifest), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns, generation: 2}
spec: {replicas: 2}
`

const deploymentRolledOut = deployment + `status:
  observedGeneration: 2
  replicas: 2
  updatedReplicas: 2
  readyReplicas: 2
  availableReplicas: 2
  conditions:
  - {type: Available, status: "True"}
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable}
`

func TestKstatus(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		want     Status
	}{
		{"a ConfigMap is current once it exists", "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}", Current},
		{"a Deployment the controller has not seen", deployment, InProgress},
		{"a Deployment rolled out", deploymentRolledOut, Current},
		{"a Deployment of an older generation", deployment + "status: {observedGeneration: 1}\n", InProgress},
		{"a failed Job", `{apiVersion: batch/v1, kind: Job, metadata: {name: j, generation: 1},
			status: {observedGeneration: 1, conditions: [{type: Failed, status: "True"}]}}`, Failed},
		{"a custom resource that reports Ready=False", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, generation: 1},
			status: {observedGeneration: 1, conditions: [{type: Ready, status: "False", reason: Waiting}]}}`, InProgress},
		{"an object being deleted", `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, deletionTimestamp: "2026-01-01T00:00:00Z"}}`, terminating},
	}
	compiled, err := NewChecker(nil)
	if err != nil {
		t.Fatal(err)
	}
	checkers := map[string]*Checker{"no checks": compiled, "the zero Checker": {}}
	for checkerName, checker := range checkers {
		for _, tt := range tests {
			t.Run(checkerName+"/"+tt.name, func(t *testing.T) {
				got := checker.Judge(object(t, tt.manifest))
				if got.Status != tt.want || got.Message == "" {
					t.Errorf("Judge() = %+v, want %s with a message", got, tt.want)
				}
			})
		}
	}
}

func TestCELChecks(t *testing.T) {
	job := schema.GroupKind{Group: "batch.example.com", Kind: "Task"}
	checker, err := NewChecker([]Check{{
		GroupKind:  job,
		Current:    "status.phase == 'Succeeded'",
		Failed:     "status.phase == 'Failed'",
		InProgress: "has(metadata.generation) && status.?observedGeneration.orValue(0) != metadata.generation",
	}})
	if err != nil {
		t.Fatal(err)
	}
	task := func(status string) *unstructured.Unstructured {
		return object(t, "{apiVersion: batch.example.com/v1, kind: Task, metadata: {name: t, generation: 1}"+status+"}")
	}
	tests := []struct {
		name string
		obj  *unstructured.Unstructured
		want Status
	}{
		{"no status yet: the fields the expressions read are missing", task(""), InProgress},
		{"an older generation is in progress whatever its phase", task(", status: {observedGeneration: 0, phase: Succeeded}"), InProgress},
		{"succeeded", task(", status: {observedGeneration: 1, phase: Succeeded}"), Current},
		{"failed", task(", status: {observedGeneration: 1, phase: Failed}"), Failed},
		{"running: no expression is true", task(", status: {observedGeneration: 1, phase: Running}"), InProgress},
		{"another kind is judged by kstatus", object(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}"), Current},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checker.Judge(tt.obj); got.Status != tt.want || got.Message == "" {
				t.Errorf("Judge() = %+v, want %s with a message", got, tt.want)
			}
		})
	}
}

func TestCompile(t *testing.T) {
	gk := schema.GroupKind{Group: "example.com", Kind: "Widget"}
	tests := []struct {
		name    string
		check   Check
		wantErr string
	}{
		{"valid", Check{GroupKind: gk, Current: "status.ready == true"}, ""},
		{"current is required", Check{GroupKind: gk, Failed: "true"}, "current: an expression is required"},
		{"a syntax error names the expression", Check{GroupKind: gk, Current: "status.ready ==", Failed: "status.("},
			"current: ERROR"},
		{"an expression must be a bool", Check{GroupKind: gk, Current: "'ready'"}, "current: the expression is of type string, not bool"},
		{"an unknown variable", Check{GroupKind: gk, Current: "state.ready"}, "undeclared reference to 'state'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := compileCheck(tt.check)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("compileCheck() = %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("compileCheck() = %v, want an error saying %q", err, tt.wantErr)
			}
		})
	}
	if _, err := NewChecker([]Check{{GroupKind: gk, Current: "true"}, {GroupKind: gk, Current: "false"}}); err == nil {
		t.Error("two checks for one kind were accepted")
	}
}

// An expression that would run too long is stopped and judged InProgress.
func TestCostLimit(t *testing.T) {
	checker, err := NewChecker([]Check{{GroupKind: schema.GroupKind{Kind: "ConfigMap"},
		Current: "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, " +
			"[1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a+b+c+d+e+f > 0))))))"}})
	if err != nil {
		t.Fatal(err)
	}
	got := checker.Judge(object(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}"))
	if got.Status != InProgress || !strings.Contains(got.Message, "cost") {
		t.Errorf("Judge() = %+v, want InProgress for exceeding the cost limit", got)
	}
}

func FuzzCompile(f *testing.F) {
	for _, seed := range []string{"status.ready == true", "self.metadata.name == 'x'", "status.(", "1 + 1", "has(spec.x) && spec.x > 2"} {
		f.Add(seed)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c"}, "status": map[string]any{"ready": true}}}
	f.Fuzz(func(t *testing.T, expr string) {
		checker, err := NewChecker([]Check{{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Current: expr}})
		if err != nil {
			return
		}
		if got := checker.Judge(obj); got.Status != Current && got.Status != InProgress {
			t.Fatalf("%q judged %s", expr, got.Status)
		}
	})
}

func TestSummaryString(t *testing.T) {
	var s Summary
	for _, st := range []Status{Current, Current, InProgress, Failed, Unknown} {
		s.Add(Result{Status: st})
	}
	if got := s.String(); got != "2/5 ready" {
		t.Errorf("String() = %q, want 2/5 ready", got)
	}
}

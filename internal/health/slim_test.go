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
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A member kept slim is judged as it is whole, keeps its identity, and
// loses what Judge does not read.
func TestSlimIsJudgedAsTheWhole(t *testing.T) {
	checker, err := NewChecker([]Check{{GroupKind: schema.GroupKind{Kind: "ConfigMap"},
		Current: "self.data.ready == 'yes'", Failed: "metadata.labels.broken == 'true'"}})
	if err != nil {
		t.Fatal(err)
	}
	managed := "managedFields: [{manager: m, operation: Apply}]"
	tests := []struct {
		name     string
		checker  *Checker
		manifest string
		dropped  []string // top-level fields the slim object has no more
	}{
		{"a ConfigMap, judged by kstatus", &Checker{},
			"{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, uid: u1, labels: {a: b}, " + managed + "}, data: {k: v}}",
			[]string{"data"}},
		{"a Deployment rolling out", &Checker{}, deployment + "status: {observedGeneration: 2, replicas: 2, updatedReplicas: 1}\n", nil},
		{"a Deployment rolled out", &Checker{}, deploymentRolledOut, nil},
		{"a failed Job", &Checker{}, `{apiVersion: batch/v1, kind: Job, metadata: {name: j, generation: 1},
			spec: {completions: 1}, status: {observedGeneration: 1, conditions: [{type: Failed, status: "True"}]}}`, nil},
		{"an object being deleted", &Checker{},
			`{apiVersion: v1, kind: Secret, metadata: {name: s, deletionTimestamp: "2026-01-01T00:00:00Z"}, data: {k: dg==}}`, []string{"data"}},
		{"a ConfigMap with a check of its own reading its data", checker,
			"{apiVersion: v1, kind: ConfigMap, metadata: {name: c, uid: u2, " + managed + "}, data: {ready: 'yes'}}", nil},
		{"a ConfigMap with a check of its own reading its labels", checker,
			"{apiVersion: v1, kind: ConfigMap, metadata: {name: c, uid: u3, labels: {broken: 'true'}}, data: {ready: 'no'}}", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole := object(t, tt.manifest)
			before := whole.DeepCopy()
			slim := tt.checker.Slim(whole)
			if got, want := tt.checker.Judge(slim), tt.checker.Judge(whole); got != want {
				t.Errorf("slim judged %+v, whole %+v", got, want)
			}
			if !equality.Semantic.DeepEqual(whole.Object, before.Object) {
				t.Error("Slim changed the object it was given")
			}
			if slim.GetAPIVersion() != whole.GetAPIVersion() || slim.GetKind() != whole.GetKind() || slim.GetName() != whole.GetName() ||
				slim.GetNamespace() != whole.GetNamespace() || slim.GetUID() != whole.GetUID() {
				t.Errorf("slim lost the identity: %v", slim.Object)
			}
			if len(slim.GetManagedFields()) > 0 {
				t.Error("slim kept managedFields")
			}
			for _, field := range tt.dropped {
				if _, ok := slim.Object[field]; ok {
					t.Errorf("slim kept %s", field)
				}
			}
		})
	}
}

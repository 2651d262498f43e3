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

package apply

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, meta.RESTScopeRoot)
	return m
}

func TestCheck(t *testing.T) {
	namespaced := Target{Scope: applyset.Scope{Namespace: "home", AdditionalNamespaces: sets.New("extra")},
		DefaultNamespace: "home", Mapper: testMapper()}
	cluster := Target{Scope: applyset.Scope{AdditionalNamespaces: sets.New("extra")}, Mapper: testMapper()}
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n" +
		"spec: {group: example.com, scope: Namespaced, names: {kind: Widget, plural: widgets}}\n"

	tests := []struct {
		name         string
		target       Target
		data         string
		wantErrs     []string
		wantRefs     []string
		wantMapped   []bool
		wantWarnings []string
	}{
		{
			name:   "namespaced objects get the default namespace; cluster-scoped ones keep none",
			target: namespaced,
			data: "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: extra}}\n---\n" +
				"{apiVersion: v1, kind: Namespace, metadata: {name: extra}}\n",
			wantRefs:   []string{"ConfigMap home/a", "ConfigMap extra/b", "Namespace extra"},
			wantMapped: []bool{true, true, true},
		},
		{
			name:   "as kubectl does: a cluster-scoped object's namespace is dropped, an exact copy is ignored",
			target: namespaced,
			data: "{apiVersion: v1, kind: Namespace, metadata: {name: extra, namespace: kube-system}}\n---\n" +
				"{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: v}}\n---\n" +
				"{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: home}, data: {k: v}}\n",
			wantRefs:   []string{"Namespace extra", "ConfigMap home/a"},
			wantMapped: []bool{true, true},
			wantWarnings: []string{
				"src document 1: Namespace extra is cluster-scoped; its metadata.namespace kube-system is ignored",
				"src document 3: ConfigMap home/a repeats src document 2 exactly; the copy is ignored",
			},
		},
		{
			name:       "a kind defined by a CRD in the same set",
			target:     namespaced,
			data:       crd + "---\n{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}\n",
			wantRefs:   []string{"CustomResourceDefinition.apiextensions.k8s.io widgets.example.com", "Widget.example.com home/w"},
			wantMapped: []bool{true, false},
		},
		{
			name:     "a kind the cluster does not serve",
			target:   namespaced,
			data:     "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}\n",
			wantErrs: []string{"src document 1: the cluster does not serve example.com/v1, Kind=Widget, and no CustomResourceDefinition in the set defines it"},
		},
		{
			name:   "every bad input is reported at once, by origin",
			target: namespaced,
			data: "{kind: ConfigMap, metadata: {name: a}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {generateName: a-}}\n---\n" +
				"{apiVersion: v1, kind: ConfigMap, metadata: {}}\n---\n" +
				"{apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {applyset.kubernetes.io/part-of: x}}}\n---\n" +
				"{apiVersion: v1, kind: ConfigMap, metadata: {name: d, namespace: elsewhere}}\n---\n" +
				"{apiVersion: v1, kind: ConfigMap, metadata: {name: e}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: e, namespace: home}, data: {k: v}}\n---\n" +
				"{apiVersion: v1, kind: ConfigMap, metadata: {name: no}}\n",
			wantErrs: []string{
				"src document 1: apiVersion and kind are required",
				"src document 2: ConfigMap uses generateName",
				"src document 3: ConfigMap has no metadata.name",
				"src document 4: ConfigMap c carries the applyset.kubernetes.io/part-of label",
				"src document 5: ConfigMap elsewhere/d lies outside the set's namespaces (extra, home); add elsewhere to spec.additionalNamespaces",
				"src document 7: ConfigMap home/e is declared twice with different content, also at src document 6; keep one",
				"src document 8: ConfigMap's metadata.name is not a string; quote it",
			},
		},
		{
			name:     "a cluster-scoped parent has no default namespace",
			target:   cluster,
			data:     "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: home}}\n",
			wantErrs: []string{"src document 1: ConfigMap a is namespaced and names no namespace", "src document 2: ConfigMap home/b lies outside"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inputs, err := Decode("src", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			objects, warnings, err := Check(inputs, tt.target)
			if len(tt.wantErrs) > 0 {
				if err == nil {
					t.Fatalf("Check accepted %d objects, want errors %v", len(objects), tt.wantErrs)
				}
				var joined interface{ Unwrap() []error }
				if !errors.As(err, &joined) || len(joined.Unwrap()) != len(tt.wantErrs) {
					t.Fatalf("Check errors = %v, want %d of them", err, len(tt.wantErrs))
				}
				for i, e := range joined.Unwrap() {
					if !strings.Contains(e.Error(), tt.wantErrs[i]) {
						t.Errorf("error %d = %q, want it to contain %q", i, e, tt.wantErrs[i])
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(objects) != len(tt.wantRefs) {
				t.Fatalf("Check returned %d objects, want %d", len(objects), len(tt.wantRefs))
			}
			got := make([]string, 0, len(warnings))
			for _, w := range warnings {
				got = append(got, w.String())
			}
			if !slices.Equal(got, tt.wantWarnings) {
				t.Errorf("warnings = %q, want %q", got, tt.wantWarnings)
			}
			for i, o := range objects {
				if got := o.Ref().String(); got != tt.wantRefs[i] {
					t.Errorf("object %d = %s, want %s", i, got, tt.wantRefs[i])
				}
				if (o.Mapping != nil) != tt.wantMapped[i] {
					t.Errorf("object %d mapped = %v, want %v", i, o.Mapping != nil, tt.wantMapped[i])
				}
			}
		})
	}
}

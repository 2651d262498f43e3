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

package adopt

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestJoinInto(t *testing.T) {
	label := `{"f:metadata":{"f:labels":{"f:` + applyset.PartOfLabel + `":{}}}}`
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsV1: metav1.NewFieldsV1(fields)}
	}
	fields := func(raw string) *fieldpath.Set {
		set := &fieldpath.Set{}
		if err := set.FromJSON(strings.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
		return set
	}
	applyOp, update := metav1.ManagedFieldsOperationApply, metav1.ManagedFieldsOperationUpdate
	hpa := entry("hpa", update, `{"f:spec":{"f:replicas":{}}}`)
	for name, tc := range map[string]struct {
		entries  []metav1.ManagedFieldsEntry
		declared string
		want     []metav1.ManagedFieldsEntry
	}{
		"everything the old tool applied is declared": {
			entries:  []metav1.ManagedFieldsEntry{entry("kubectl", applyOp, `{"f:data":{"f:k":{}}}`), hpa, entry("applyset-operator", applyOp, label)},
			declared: `{"f:data":{"f:k":{}}}`,
			want: []metav1.ManagedFieldsEntry{hpa,
				entry("applyset-operator", applyOp, `{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:`+applyset.PartOfLabel+`":{}}}}`)},
		},
		"what the set does not declare stays the old tool's": {
			entries: []metav1.ManagedFieldsEntry{entry("kubectl", applyOp, `{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:managed-by":{}}}}`),
				entry("applyset-operator", applyOp, label)},
			declared: `{"f:data":{"f:k":{}}}`,
			want: []metav1.ManagedFieldsEntry{entry("kubectl", applyOp, `{"f:metadata":{"f:labels":{"f:managed-by":{}}}}`),
				entry("applyset-operator", applyOp, `{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:`+applyset.PartOfLabel+`":{}}}}`)},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := joinInto(tc.entries, "applyset-operator", []string{"kubectl"}, fields(tc.declared))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normalized(t, tc.want), normalized(t, got)); diff != "" {
				t.Errorf("joinInto (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := joinInto([]metav1.ManagedFieldsEntry{entry("kubectl", applyOp, label)}, "applyset-operator", []string{"kubectl"}, &fieldpath.Set{}); err == nil {
		t.Error("joinInto without the operator's apply entry: no error")
	}
}

// normalized writes each entry's fields as their set serializes them, so
// that entries compare by the fields they own.
func normalized(t *testing.T, entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	for _, e := range entries {
		set, err := fieldsOfEntries([]metav1.ManagedFieldsEntry{e})
		if err != nil {
			t.Fatal(err)
		}
		if e.FieldsV1, err = fieldsV1(set); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func TestDeclarationClean(t *testing.T) {
	a := adoptee{ref: apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "shop", Name: "web"},
		resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}}
	obj := &unstructured.Unstructured{Object: map[string]any{"kind": "ConfigMap", "metadata": map[string]any{
		"name": "web", "uid": "u", "resourceVersion": "7",
		"labels":      map[string]any{applyset.PartOfLabel: "old"},
		"annotations": map[string]any{apply.LastAppliedAnnotation: "{}", "keep": "me"},
	}, "data": map[string]any{"k": "v"}}}
	got := (&declarer{}).clean(a, obj, "test").obj.Object
	want := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "annotations": map[string]any{"keep": "me"}}, "data": map[string]any{"k": "v"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("clean (-want +got):\n%s", diff)
	}
}

func TestNewAdoptingSet(t *testing.T) {
	configMap := func(name string, size int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name}, "data": map[string]any{"k": strings.Repeat("x", size)}}}
	}
	set, cm, err := newAdoptingSet("shop", "web", "deployer", []*unstructured.Unstructured{configMap("a", 10)})
	if err != nil || cm != nil {
		t.Fatalf("a small declaration: ConfigMap %v, error %v", cm, err)
	}
	resources, _, _ := unstructured.NestedSlice(set.Object, "spec", "resources")
	if sa, _, _ := unstructured.NestedString(set.Object, "spec", "serviceAccountName"); len(resources) != 1 || sa != "deployer" {
		t.Errorf("a small declaration: resources %v, serviceAccountName %q", resources, sa)
	}

	large := []*unstructured.Unstructured{configMap("a", 200<<10), configMap("b", 200<<10)}
	set, cm, err = newAdoptingSet("shop", "web", "", large)
	if err != nil || cm == nil {
		t.Fatalf("a large declaration: ConfigMap %v, error %v", cm, err)
	}
	sources, _, _ := unstructured.NestedSlice(set.Object, "spec", "sources")
	want := []any{map[string]any{"kind": "ConfigMap", "name": "web-adopted", "key": adoptedKey}}
	if diff := cmp.Diff(want, sources); diff != "" {
		t.Errorf("a large declaration's sources (-want +got):\n%s", diff)
	}
	if _, inline, _ := unstructured.NestedFieldNoCopy(set.Object, "spec", "resources"); inline {
		t.Error("a large declaration is inline too")
	}
	if data, _, _ := unstructured.NestedString(cm.Object, "data", adoptedKey); strings.Count(data, "---\n") != 2 {
		t.Errorf("the ConfigMap holds %d documents, want 2", strings.Count(data, "---\n"))
	}

	if _, _, err := newAdoptingSet("shop", "web", "", append(large, configMap("c", 700<<10))); err == nil {
		t.Error("a declaration larger than a ConfigMap: no error")
	}

	// A Secret is never written inline, nor in a ConfigMap: namespace
	// viewers read both.
	secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "db"}, "stringData": map[string]any{"password": "hunter2"}}}
	set, holder, err := newAdoptingSet("shop", "web", "", []*unstructured.Unstructured{configMap("a", 10), secret})
	if err != nil || holder == nil || holder.GetKind() != "Secret" {
		t.Fatalf("a declaration with a Secret: holder %v, error %v", holder, err)
	}
	if raw, _ := json.Marshal(set.Object); strings.Contains(string(raw), "hunter2") {
		t.Errorf("the set holds the Secret's data: %s", raw)
	}
	sources, _, _ = unstructured.NestedSlice(set.Object, "spec", "sources")
	want = []any{map[string]any{"kind": "Secret", "name": "web-adopted", "key": adoptedKey}}
	if diff := cmp.Diff(want, sources); diff != "" {
		t.Errorf("a declaration with a Secret: sources (-want +got):\n%s", diff)
	}
	encoded, _, _ := unstructured.NestedString(holder.Object, "data", adoptedKey)
	decoded, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil || !strings.Contains(string(decoded), "password: hunter2") || strings.Count(string(decoded), "---\n") != 2 {
		t.Errorf("the Secret holds %q (%v), want both documents", decoded, err)
	}
}

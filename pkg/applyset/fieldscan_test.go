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

package applyset

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// holdsDecoded is holds by decoding each object on the path into a map:
// the answer the scan must give.
func holdsDecoded(raw []byte, path []string) bool {
	for _, key := range path {
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			return false
		}
		next, ok := fields[key]
		if !ok {
			return false
		}
		raw = next
	}
	return true
}

// applied is the field set kubectl's server-side apply of a labelled
// ConfigMap leaves.
const applied = `{"f:data":{".":{},"f:key":{}},"f:metadata":{"f:labels":{".":{},"f:applyset.kubernetes.io/part-of":{}}}}`

var fieldSets = []struct {
	name string
	raw  string
	want bool
}{
	{"applied by kubectl", applied, true},
	{"spaced out", " {\n \"f:metadata\" : {\t\"f:labels\":{\"f:applyset.kubernetes.io/part-of\" : {} } } } ", true},
	{"the label only", `{"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":{}}}}`, true},
	{"the label as null", `{"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":null}}}`, true},
	{"other labels", `{"f:metadata":{"f:labels":{"f:app":{}}}}`, false},
	{"the key as a value", `{"f:metadata":{"f:labels":{"f:app":"f:applyset.kubernetes.io/part-of"}}}`, false},
	{"the key under data", `{"f:data":{"f:applyset.kubernetes.io/part-of":{}},"f:metadata":{}}`, false},
	{"the key under annotations", `{"f:metadata":{"f:annotations":{"f:applyset.kubernetes.io/part-of":{}}}}`, false},
	{"labels not an object", `{"f:metadata":{"f:labels":["f:applyset.kubernetes.io/part-of"]}}`, false},
	{"labels null", `{"f:metadata":{"f:labels":null},"x":"f:applyset.kubernetes.io/part-of"}`, false},
	{"metadata repeated, the last without", `{"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":{}}},"f:metadata":{}}`, false},
	{"metadata repeated, the last with", `{"f:metadata":{},"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":{}}}}`, true},
	{"an escaped key", `{"f:metad\u0061ta":{"f:labels":{"f:applyset.kubernetes.io\/part-of":{}}}}`, true},
	{"escapes in values skipped", `{"a":"\"}{[","f:metadata":{"b":["\\",{"c":"]"}],"f:labels":{"f:applyset.kubernetes.io/part-of":1}}}`, true},
	{"numbers and literals skipped", `{"a":-1.5e3,"b":true,"c":null,"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":false}}}`, true},
	{"not JSON", `{"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":{}}}`, false},
	{"trailing bytes", applied + `x`, false},
	{"a string", `"f:applyset.kubernetes.io/part-of"`, false},
	{"empty", ``, false},
}

func TestHolds(t *testing.T) {
	for _, tc := range fieldSets {
		t.Run(tc.name, func(t *testing.T) {
			if got := holds([]byte(tc.raw), partOfField); got != tc.want {
				t.Errorf("holds(%s) = %v, want %v", tc.raw, got, tc.want)
			}
			if got := holdsDecoded([]byte(tc.raw), partOfField); got != tc.want {
				t.Errorf("decoded, %s holds it: %v, want %v", tc.raw, got, tc.want)
			}
		})
	}
}

func TestPartOfAppliers(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, raw string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsV1: metav1.NewFieldsV1(raw)}
	}
	got := PartOfAppliers([]metav1.ManagedFieldsEntry{
		entry("kubectl", metav1.ManagedFieldsOperationApply, applied),
		entry("labeller", metav1.ManagedFieldsOperationUpdate, applied),
		entry("other", metav1.ManagedFieldsOperationApply, `{"f:data":{"f:key":{}}}`),
		{Manager: "kept", Operation: metav1.ManagedFieldsOperationApply},
	})
	if want := []string{"kubectl", "kept"}; !equal(got, want) {
		t.Errorf("PartOfAppliers = %v, want %v", got, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The scan finds the part-of label where decoding finds it, and nowhere else.
func FuzzHolds(f *testing.F) {
	for _, tc := range fieldSets {
		f.Add(tc.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := holds([]byte(raw), partOfField), holdsDecoded([]byte(raw), partOfField); got != want {
			t.Fatalf("holds(%q) = %v, decoding says %v", raw, got, want)
		}
		// The label's key is rarely there by chance: look for another path too.
		path := []string{"a", "b"}
		if got, want := holds([]byte(raw), path), holdsDecoded([]byte(raw), path); got != want {
			t.Fatalf("holds(%q, %v) = %v, decoding says %v", raw, path, got, want)
		}
	})
}

func BenchmarkPartOfAppliers(b *testing.B) {
	entries := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply,
		FieldsV1: metav1.NewFieldsV1(applied)}}
	for b.Loop() {
		PartOfAppliers(entries)
	}
}

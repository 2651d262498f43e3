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
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// upToDate reports whether applying desired as manager would leave existing as
// it is, so that the apply can be skipped: every declared value is already in
// place, and the manager owns no field that the declaration no longer has
// (server-side apply would remove such a field). When ownership cannot be read
// exactly (associative lists), it answers false and the apply runs.
func upToDate(existing, desired *unstructured.Unstructured, manager string) bool {
	if existing == nil || !contains(existing.Object, desired.Object) {
		return false
	}
	owned, ok := ownedLeaves(existing.GetManagedFields(), manager)
	if !ok {
		return false
	}
	declared := map[string]bool{}
	leafPaths(nil, desired.Object, declared)
	for path := range owned {
		if !declared[path] {
			return false
		}
	}
	return true
}

// contains reports whether every value of want is in have; lists must match whole.
func contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			hv, ok := h[k]
			if !ok || !contains(hv, wv) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(have, want)
	}
}

// leafPaths collects the paths of the leaves of v; lists and empty maps are leaves.
func leafPaths(prefix []string, v any, out map[string]bool) {
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		for k, child := range m {
			leafPaths(append(prefix[:len(prefix):len(prefix)], k), child, out)
		}
		return
	}
	out[strings.Join(prefix, "\x00")] = true
}

// ownedLeaves reads the leaf fields manager owns through apply. ok is false when
// they cannot be compared by field names alone.
func ownedLeaves(entries []metav1.ManagedFieldsEntry, manager string) (map[string]bool, bool) {
	out := map[string]bool{}
	for _, e := range entries {
		if e.Manager != manager || e.Operation != metav1.ManagedFieldsOperationApply || e.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(e.FieldsV1.GetRawReader()); err != nil {
			return nil, false
		}
		ok := true
		set.Leaves().Iterate(func(p fieldpath.Path) {
			names := make([]string, 0, len(p))
			for _, el := range p {
				if el.FieldName == nil {
					ok = false
					return
				}
				names = append(names, *el.FieldName)
			}
			out[strings.Join(names, "\x00")] = true
		})
		if !ok {
			return nil, false
		}
	}
	return out, true
}

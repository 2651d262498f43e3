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
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// appliedConfigAnnotation records, on every member the engine applies, a
// digest of the configuration it applied. When the digest is unchanged, the
// manager owns exactly the fields of that configuration, and an apply can
// change nothing as long as its values are still in place.
const appliedConfigAnnotation = "apply.applyset.dev/applied-config"

// stampConfig sets the digest of desired's configuration on desired.
func stampConfig(desired *unstructured.Unstructured) {
	annotations := desired.GetAnnotations()
	delete(annotations, appliedConfigAnnotation)
	desired.SetAnnotations(annotations)
	data, err := json.Marshal(desired.Object) // map keys sorted: the same configuration, the same bytes
	if err != nil {
		return // no digest: the apply then runs every time, which is safe
	}
	sum := sha256.Sum256(data)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[appliedConfigAnnotation] = "sha256:" + base64.RawURLEncoding.EncodeToString(sum[:])
	desired.SetAnnotations(annotations)
}

// upToDate reports whether applying desired as manager would leave existing as
// it is, so that the apply can be skipped: every declared value is already in
// place (lists of objects item by item, so that values the API server filled
// in do not count as differences), and the manager owns no field that the
// declaration no longer has (server-side apply would remove such a field).
// The second holds when existing carries desired's digest: the manager last
// applied this very configuration. Without it, ownership is read from managed
// fields; when that cannot be done exactly (associative lists), it answers
// false and the apply runs.
func upToDate(existing, desired *unstructured.Unstructured, manager string) bool {
	if existing == nil || !contains(existing.Object, comparable(desired).Object) {
		return false
	}
	if digest := desired.GetAnnotations()[appliedConfigAnnotation]; digest != "" {
		return existing.GetAnnotations()[appliedConfigAnnotation] == digest && appliedBy(existing, manager)
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

// appliedBy reports whether manager has applied fields of obj.
func appliedBy(obj *unstructured.Unstructured, manager string) bool {
	for _, e := range obj.GetManagedFields() {
		if e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}

// comparable is desired as the API server stores it: a Secret's stringData
// is written into data, base64-encoded, and is not stored itself; status is
// not written with the object (CRDs carry an empty one in many manifests).
func comparable(desired *unstructured.Unstructured) *unstructured.Unstructured {
	_, hasStatus := desired.Object["status"]
	stringData, isSecretData := desired.Object["stringData"].(map[string]any)
	isSecretData = isSecretData && desired.GroupVersionKind().GroupKind() == secretKind
	if !hasStatus && !isSecretData {
		return desired
	}
	out := desired.DeepCopy()
	delete(out.Object, "status")
	if !isSecretData {
		return out
	}
	delete(out.Object, "stringData")
	data, _ := out.Object["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range stringData {
		if s, ok := v.(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
	out.Object["data"] = data
	return out
}

// contains reports whether every value of want is in have, as the API server
// would store want. Lists of objects are compared item by item, each wanted
// item contained in the item at its place (the API server fills in defaults
// inside list items); other lists must match whole. The server's own
// rewrites count as equal: a null, empty or zero value it leaves out, and a
// quantity in its canonical form (1000m is stored as 1).
func contains(have, want any) bool {
	switch w := want.(type) {
	case nil:
		return true
	case map[string]any:
		h, ok := have.(map[string]any)
		return ok && containsFields(h, w)
	case []any:
		h, ok := have.([]any)
		return ok && containsItems(h, w)
	default:
		return reflect.DeepEqual(have, want) || sameQuantity(have, want)
	}
}

func containsFields(have, want map[string]any) bool {
	for k, wv := range want {
		hv, ok := have[k]
		if !ok && !isZero(wv) || ok && !contains(hv, wv) {
			return false
		}
	}
	return true
}

func containsItems(have, want []any) bool {
	if len(have) != len(want) {
		return false
	}
	for i := range want {
		if _, isObject := want[i].(map[string]any); isObject {
			if !contains(have[i], want[i]) {
				return false
			}
		} else if !reflect.DeepEqual(have[i], want[i]) {
			return false
		}
	}
	return true
}

// isZero reports whether v is a value the API server leaves out of what it
// stores when the field is omitempty: empty, false, zero or null.
func isZero(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	case string:
		return t == ""
	case bool:
		return !t
	case int64:
		return t == 0
	case float64:
		return t == 0
	}
	return false
}

// sameQuantity reports whether have is the canonical form of the quantity
// want: the API server rewrites quantities, as 1000m to 1 and 0.5Gi to 512Mi.
func sameQuantity(have, want any) bool {
	h, ok := have.(string)
	if !ok {
		return false
	}
	var w string
	switch t := want.(type) {
	case string:
		w = t
	case int64:
		w = strconv.FormatInt(t, 10)
	case float64:
		w = strconv.FormatFloat(t, 'f', -1, 64)
	default:
		return false
	}
	hq, err := resource.ParseQuantity(h)
	if err != nil {
		return false
	}
	wq, err := resource.ParseQuantity(w)
	return err == nil && hq.Cmp(wq) == 0
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

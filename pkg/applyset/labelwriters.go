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
	"bytes"
	"encoding/json"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A member's part-of label says which set claims it, not who put it there.
// managedFields say who wrote it, and how: an apply under a tool's field
// manager, or an update by any client (a controller copying its parent's
// labels onto the objects it creates, a person running kubectl label). Any
// client may name any field manager, so this says who claims to have written
// the label, which is evidence, not proof.

// partOfField is the part-of label in managed fields (FieldsV1 keys).
var partOfField = []string{"f:metadata", "f:labels", "f:" + PartOfLabel}

// LabelWriter is a field manager that wrote a member's part-of label.
type LabelWriter struct {
	Manager   string
	Operation metav1.ManagedFieldsOperationType
}

func (w LabelWriter) String() string { return w.Manager + " (" + string(w.Operation) + ")" }

// FormatWriters lists writers as messages name them: "a (Apply), b (Update)".
func FormatWriters(writers []LabelWriter) string {
	names := make([]string, 0, len(writers))
	for _, w := range writers {
		names = append(names, w.String())
	}
	return strings.Join(names, ", ")
}

// PartOfWriters returns the field managers whose managedFields entries hold
// the part-of label, in their order.
func PartOfWriters(entries []metav1.ManagedFieldsEntry) []LabelWriter {
	var out []LabelWriter
	for _, e := range entries {
		if WritesPartOf(e) {
			out = append(out, LabelWriter{Manager: e.Manager, Operation: e.Operation})
		}
	}
	return out
}

// PartOfAppliers returns the field managers that applied the part-of label
// with server-side apply.
func PartOfAppliers(entries []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range entries {
		// The operation first: it is cheaper to read than the field set.
		if e.Operation == metav1.ManagedFieldsOperationApply && WritesPartOf(e) {
			out = append(out, e.Manager)
		}
	}
	return out
}

// WritesPartOf reports whether a managedFields entry holds the part-of label.
// An entry without a field set counts: caches that keep only the writers of
// the label drop the sets themselves.
func WritesPartOf(e metav1.ManagedFieldsEntry) bool {
	return e.FieldsV1 == nil || holds(e.FieldsV1.GetRawBytes(), partOfField)
}

// holds reports whether a FieldsV1 set holds the field at path, as decoding
// each object on the path into a map would find it: nothing in a set that is
// not valid JSON, and the last of a repeated key. Every member listed asks it
// for its appliers, so it reads the set's tokens rather than decode it.
func holds(raw []byte, path []string) bool {
	if !bytes.Contains(raw, []byte(path[len(path)-1])) && bytes.IndexByte(raw, '\\') < 0 {
		return false // the common case, without reading: no key, not even escaped
	}
	return json.Valid(raw) && readsPath(raw, path)
}

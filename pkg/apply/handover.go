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
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// An object kubectl applied client-side carries its last-applied annotation,
// and its fields are owned by kubectl's client-side manager through updates.
// Server-side apply never removes a field another manager still owns, so a
// field the set stops declaring would stay for ever. Once the engine has
// applied such an object, it removes those managers' entries and the
// annotation, and nothing else: the set then owns exactly what it declared,
// and the fields it never declared are left unowned, as they are. (client-go's
// csaupgrade hands all of them to the new manager instead, whose next apply
// would then remove fields the set never declared.)

// LastAppliedAnnotation is where kubectl's client-side apply records the
// configuration it applied.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// DefaultLegacyManagers are the field managers handed over when
// Engine.LegacyManagers is nil: kubectl's client-side apply.
var DefaultLegacyManagers = []string{"kubectl-client-side-apply"}

// handoverAttempts bounds the retries of an object that keeps changing.
const handoverAttempts = 3

// handover is what removing the legacy ownership of one object takes.
type handover struct {
	// managers name the legacy managers whose entries go, sorted.
	managers []string
	// indexes are the positions of their entries in metadata.managedFields,
	// and entries those entries as read, to test before removing them.
	indexes []int
	entries []any
	// annotation is the last-applied annotation's value; nil keeps it.
	annotation *string
}

func (e *Engine) legacyManagers() []string {
	if e.LegacyManagers == nil {
		return DefaultLegacyManagers
	}
	return e.LegacyManagers
}

// planHandover finds on obj the entries of legacy managers that updated the
// object itself; entries of applies, of subresources and of other tools stay.
// It is nil when there are none, or when removing them would leave no entry:
// the API server takes an empty list as a request to reset them all.
func (e *Engine) planHandover(obj, desired *unstructured.Unstructured) *handover {
	if obj == nil {
		return nil
	}
	entries, _, err := unstructured.NestedSlice(obj.Object, "metadata", "managedFields")
	if err != nil {
		return nil
	}
	h := &handover{}
	for i, entry := range entries {
		if manager, ok := e.legacyEntry(entry); ok {
			h.indexes = append(h.indexes, i)
			h.entries = append(h.entries, entry)
			h.managers = append(h.managers, manager)
		}
	}
	if len(h.indexes) == 0 || len(h.indexes) == len(entries) {
		return nil
	}
	slices.Sort(h.managers)
	h.managers = slices.Compact(h.managers)
	_, declared := desired.GetAnnotations()[LastAppliedAnnotation]
	if value, ok := obj.GetAnnotations()[LastAppliedAnnotation]; ok && !declared {
		h.annotation = &value
	}
	return h
}

// legacyEntry reports whether a managedFields entry is a legacy manager's
// update of the object itself, and names the manager.
func (e *Engine) legacyEntry(entry any) (string, bool) {
	fields, ok := entry.(map[string]any)
	if !ok {
		return "", false
	}
	manager, _ := fields["manager"].(string)
	operation, _ := fields["operation"].(string)
	subresource, _ := fields["subresource"].(string)
	legacy := operation == string(metav1.ManagedFieldsOperationUpdate) && subresource == "" &&
		slices.Contains(e.legacyManagers(), manager)
	return manager, legacy
}

// patch is the JSON patch that removes the entries, each tested first so
// that an entry a concurrent writer changed is not removed unseen (from the
// last, so that the positions hold), and the annotation, tested the same way.
func (h *handover) patch() ([]byte, error) {
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value,omitempty"`
	}
	var ops []op
	for i := len(h.indexes) - 1; i >= 0; i-- {
		path := fmt.Sprintf("/metadata/managedFields/%d", h.indexes[i])
		ops = append(ops, op{Op: "test", Path: path, Value: h.entries[i]}, op{Op: "remove", Path: path})
	}
	if h.annotation != nil {
		path := "/metadata/annotations/" + escapePointer(LastAppliedAnnotation)
		ops = append(ops, op{Op: "test", Path: path, Value: *h.annotation}, op{Op: "remove", Path: path})
	}
	return json.Marshal(ops)
}

// escapePointer escapes a key as one token of a JSON pointer (RFC 6901).
func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// applyTo returns obj as the handover leaves it, without writing: a preview.
func (h *handover) applyTo(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	entries, _, _ := unstructured.NestedSlice(out.Object, "metadata", "managedFields")
	for i := len(h.indexes) - 1; i >= 0; i-- {
		entries = slices.Delete(entries, h.indexes[i], h.indexes[i]+1)
	}
	_ = unstructured.SetNestedSlice(out.Object, entries, "metadata", "managedFields")
	if h.annotation != nil {
		annotations := out.GetAnnotations()
		delete(annotations, LastAppliedAnnotation)
		out.SetAnnotations(annotations)
	}
	return out
}

// handOver removes the legacy ownership of applied, the object as the apply
// left it, and returns the object as it is then, with what was handed over
// (nil when nothing was; on an error, what was not); in a dry run it writes
// nothing and previews. An object that changed meanwhile is read again and
// handed over as it is then.
func (e *Engine) handOver(ctx context.Context, applied, desired *unstructured.Unstructured, dryRun bool) (
	*unstructured.Unstructured, *handover, error) {
	h := e.planHandover(applied, desired)
	if h == nil {
		return applied, nil, nil
	}
	if dryRun {
		return h.applyTo(applied), h, nil
	}
	obj := applied
	for attempt := 1; ; attempt++ {
		patched, err := e.patchHandover(ctx, obj, h)
		if err == nil {
			return patched, h, nil
		}
		if !apierrors.IsInvalid(err) && !apierrors.IsConflict(err) || attempt == handoverAttempts {
			return nil, h, err
		}
		if obj, err = e.reread(ctx, obj); err != nil {
			return nil, h, err
		}
		if next := e.planHandover(obj, desired); next != nil {
			h = next
			continue
		}
		return obj, nil, nil // another writer removed them meanwhile
	}
}

// patchHandover sends the handover's patch as the engine's identity, whose
// permission to patch the apply's check covered.
func (e *Engine) patchHandover(ctx context.Context, obj *unstructured.Unstructured, h *handover) (*unstructured.Unstructured, error) {
	patch, err := h.patch()
	if err != nil {
		return nil, err
	}
	patched := obj.DeepCopy()
	err = e.retryTransient(ctx, func() error {
		return e.Client.Patch(ctx, patched, client.RawPatch(types.JSONPatchType, patch), client.FieldOwner(e.FieldManager))
	})
	return patched, err
}

// reread reads obj again.
func (e *Engine) reread(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	fresh := &unstructured.Unstructured{}
	fresh.SetGroupVersionKind(obj.GroupVersionKind())
	return fresh, e.Client.Get(ctx, client.ObjectKeyFromObject(obj), fresh)
}

// note says, for a person reading the change, what the handover did.
func (h *handover) note(dryRun bool) string {
	removed := "the update ownership of " + strings.Join(h.managers, ", ")
	if h.annotation != nil {
		removed += " and the " + LastAppliedAnnotation + " annotation"
	}
	verb := "removed"
	if dryRun {
		verb = "would be removed"
	}
	return removed + " " + verb + ": the set owns the fields it declares, the others are left as they are"
}

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

package applysets

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func (r *Reconciler) parentKey(set applyv1alpha1.Set) applyset.ParentKey {
	return applyset.ParentKey{GroupKind: r.groupKind, Namespace: set.GetNamespace(), Name: set.GetName()}
}

// checkParent refuses a set whose ID label is not its own or that another tool manages.
func checkParent(set applyv1alpha1.Set, parent applyset.Parent) (string, error) {
	if id := set.GetLabels()[applyset.IDLabel]; id != "" && !parent.Trusted() {
		return applyv1alpha1.ReasonIDMismatch, fmt.Errorf("the %s label is %s, not this set's ID %s; "+
			"remove the label to let the operator set it", applyset.IDLabel, id, parent.Key.ID())
	}
	if t := parent.Tooling; t.Name != "" && !identity.Owns(t) {
		return applyset.ReasonForeignTooling, fmt.Errorf("the set is managed by %s; the operator does not touch "+
			"another tool's set (remove the %s annotation to hand it over)", t, applyset.ToolingAnnotation)
	}
	return "", nil
}

// writeParent applies the ID label, the tooling annotation, the hints and the
// members finalizer to the set itself, in one server-side apply under the
// hints field manager. It comes before the set writes any member, so that a
// set with members always has its finalizer; a set that never got this far
// has none to release. Every apply of the hints carries the finalizer: the
// manager owns it, and an apply without it would remove it.
func (r *Reconciler) writeParent(ctx context.Context, set applyv1alpha1.Set, hints declared.Hints) error {
	gvk, err := r.gvk()
	if err != nil {
		return err
	}
	patch := applyset.ParentPatch(gvk, r.parentKey(set), applyset.ParentFields{
		ID: true, Tooling: ptr.To(identity.Tooling(r.opts.ToolingVersion)),
		GroupKinds: hints.Kinds, AdditionalNamespaces: hints.Namespaces,
	})
	patch.SetFinalizers([]string{applyv1alpha1.MembersFinalizer})
	if hasAll(set.GetLabels(), patch.GetLabels()) && hasAll(set.GetAnnotations(), patch.GetAnnotations()) &&
		slices.Contains(set.GetFinalizers(), applyv1alpha1.MembersFinalizer) {
		return nil // already in place: a steady set costs no writes
	}
	body, err := json.Marshal(patch.Object)
	if err != nil {
		return fmt.Errorf("writing the parent's ID and hints: %w", err)
	}
	written := metadataOf(set, gvk)
	if err := r.client.Patch(ctx, written, client.RawPatch(types.ApplyPatchType, body),
		client.FieldOwner(identity.HintsFieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("writing the parent's ID and hints: %w", err)
	}
	r.wrote(set, written.GetResourceVersion())
	// Keep the in-memory copy in step, so the status patch does not undo it.
	labels, annotations := set.GetLabels(), set.GetAnnotations()
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	for k, v := range patch.GetLabels() {
		labels[k] = v
	}
	for k, v := range patch.GetAnnotations() {
		annotations[k] = v
	}
	set.SetLabels(labels)
	set.SetAnnotations(annotations)
	if !slices.Contains(set.GetFinalizers(), applyv1alpha1.MembersFinalizer) {
		set.SetFinalizers(append(set.GetFinalizers(), applyv1alpha1.MembersFinalizer))
	}
	return nil
}

// writeStatus patches the set's status from before to what set holds now.
// The patch carries the status alone, so the set's inline objects are not
// marshalled to compute it.
func (r *Reconciler) writeStatus(ctx context.Context, set applyv1alpha1.Set, before *applyv1alpha1.ApplySetStatus) error {
	gvk, err := r.gvk()
	if err != nil {
		return err
	}
	from, to := r.newSet(), r.newSet()
	*from.GetSetStatus(), *to.GetSetStatus() = *before, *set.GetSetStatus()
	data, err := client.MergeFrom(from).Data(to)
	if err != nil {
		return err
	}
	written := metadataOf(set, gvk)
	if err := r.client.Status().Patch(ctx, written, client.RawPatch(types.MergePatchType, data)); err != nil {
		return err
	}
	r.wrote(set, written.GetResourceVersion())
	return nil
}

// writeStatusLocked is writeStatus on the set as it was read: the API server
// refuses it with a Conflict when the set changed since. The set takes the
// resourceVersion written.
func (r *Reconciler) writeStatusLocked(ctx context.Context, set applyv1alpha1.Set, before *applyv1alpha1.ApplySetStatus) error {
	gvk, err := r.gvk()
	if err != nil {
		return err
	}
	from, to := r.newSet(), r.newSet()
	*from.GetSetStatus(), *to.GetSetStatus() = *before, *set.GetSetStatus()
	from.SetResourceVersion(set.GetResourceVersion())
	to.SetResourceVersion(set.GetResourceVersion())
	data, err := client.MergeFromWithOptions(from, client.MergeFromWithOptimisticLock{}).Data(to)
	if err != nil {
		return err
	}
	written := metadataOf(set, gvk)
	if err := r.client.Status().Patch(ctx, written, client.RawPatch(types.MergePatchType, data)); err != nil {
		return err
	}
	set.SetResourceVersion(written.GetResourceVersion())
	r.wrote(set, written.GetResourceVersion())
	return nil
}

// metadataOf names set for a write whose answer is read as metadata only:
// the API server then sends back neither the set's inline objects nor its
// status, which the reconciler has in hand.
func metadataOf(set applyv1alpha1.Set, gvk schema.GroupVersionKind) *metav1.PartialObjectMetadata {
	out := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: set.GetNamespace(), Name: set.GetName()}}
	out.SetGroupVersionKind(gvk)
	return out
}

func hasAll(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func (r *Reconciler) gvk() (schema.GroupVersionKind, error) {
	gvks, _, err := r.scheme.ObjectKinds(r.newSet())
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("the scheme does not know %s: %w", r.groupKind, err)
	}
	return gvks[0], nil
}

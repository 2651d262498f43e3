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
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// PruneOptions say which members a prune may delete.
type PruneOptions struct {
	// SetID is the ID the members carry.
	SetID string
	// ParentUID is the parent's UID; members with owner references must point at it.
	ParentUID string
	// Scope is where members may live; others are never deleted.
	Scope applyset.Scope
	// Kinds are the kinds to look at (the parent's hint, a superset of the members' kinds).
	Kinds sets.Set[schema.GroupKind]
	// Keep are the objects still declared.
	Keep sets.Set[ObjectRef]
	// DryRun previews the prune with server-side dry-run.
	DryRun bool
}

// Prune deletes the members that are no longer declared and may be deleted:
// they carry the set's ID, lie in its scope, and their owner references, if
// any, point at the parent. Deletes carry a UID precondition.
func (e *Engine) Prune(ctx context.Context, target PruneOptions) (ChangeSet, error) {
	cs := ChangeSet{DryRun: target.DryRun}
	var errs []error
	kinds := target.Kinds.UnsortedList()
	slices.SortFunc(kinds, func(a, b schema.GroupKind) int { return cmp.Compare(a.String(), b.String()) })
	for _, gk := range kinds {
		candidates, err := e.listMembers(ctx, gk, target)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, m := range candidates {
			ref := ObjectRef{GroupKind: gk, Namespace: m.Namespace, Name: m.Name}
			if target.Keep.Has(ref) {
				continue
			}
			if reason := pruneBlocker(m, target); reason != "" {
				cs.Changes = append(cs.Changes, Change{Ref: ref, Action: Skipped, Reason: reason})
				continue
			}
			opts := []client.DeleteOption{client.Preconditions{UID: &m.UID}}
			if target.DryRun {
				opts = append(opts, client.DryRunAll)
			}
			if err := e.Client.Delete(ctx, m, opts...); client.IgnoreNotFound(err) != nil {
				errs = append(errs, fmt.Errorf("pruning %s: %w", ref, err))
				cs.Changes = append(cs.Changes, failed(ref, err))
				continue
			}
			cs.Changes = append(cs.Changes, Change{Ref: ref, Action: Pruned})
		}
	}
	sortChanges(cs.Changes)
	return cs, errors.Join(errs...)
}

// listMembers lists the metadata of the objects of kind gk that carry the set's
// ID, in every namespace of the scope (or at cluster scope).
func (e *Engine) listMembers(ctx context.Context, gk schema.GroupKind, target PruneOptions) ([]*metav1.PartialObjectMetadata, error) {
	mapping, err := e.Client.RESTMapper().RESTMapping(gk)
	if meta.IsNoMatchError(err) {
		return nil, nil // the kind is gone, and its objects with it
	}
	if err != nil {
		return nil, fmt.Errorf("looking up %s: %w", gk, err)
	}
	namespaces := []string{""}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		namespaces = target.Scope.Namespaces()
	}
	var out []*metav1.PartialObjectMetadata
	for _, ns := range namespaces {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(mapping.GroupVersionKind.GroupVersion().WithKind(mapping.GroupVersionKind.Kind + "List"))
		if err := e.reader().List(ctx, list, client.InNamespace(ns), client.MatchingLabels{applyset.PartOfLabel: target.SetID}); err != nil {
			return nil, fmt.Errorf("listing %s members in %q: %w", gk, ns, err)
		}
		for i := range list.Items {
			item := &list.Items[i]
			item.SetGroupVersionKind(mapping.GroupVersionKind)
			out = append(out, item)
		}
	}
	return out, nil
}

// pruneBlocker says why a member must be kept, or "" when it may be deleted.
func pruneBlocker(m *metav1.PartialObjectMetadata, target PruneOptions) string {
	if m.Labels[applyset.PartOfLabel] != target.SetID {
		return "it does not carry the set's ID"
	}
	if m.Namespace != "" && !target.Scope.Contains(m.Namespace) {
		return "it lies outside the set's namespaces"
	}
	if len(m.OwnerReferences) > 0 && !slices.ContainsFunc(m.OwnerReferences, func(r metav1.OwnerReference) bool {
		return string(r.UID) == target.ParentUID
	}) {
		return fmt.Sprintf("it is owned by %s %s, not by the set's parent", m.OwnerReferences[0].Kind, m.OwnerReferences[0].Name)
	}
	return ""
}

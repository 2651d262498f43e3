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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// member is an object that carries a set's part-of label, as listed.
type member struct {
	ref      ObjectRef
	resource schema.GroupResource
	obj      *metav1.PartialObjectMetadata
	// group is the member's place in the apply order, for deleting in reverse.
	group int
}

// listMembers lists the metadata of the objects of kinds that carry the set's
// ID, in every namespace of the scope (or at cluster scope), sorted. Lists the
// identity may not make are returned as denied permissions; a namespace that
// no longer exists is skipped.
func (e *Engine) listMembers(ctx context.Context, setID string, kinds sets.Set[schema.GroupKind], scope applyset.Scope) (
	[]member, []Permission, error) {
	var (
		out    []member
		denied []Permission
		errs   []error
	)
	sorted := kinds.UnsortedList()
	slices.SortFunc(sorted, func(a, b schema.GroupKind) int { return cmp.Compare(a.String(), b.String()) })
	for _, gk := range sorted {
		mapping, err := e.Client.RESTMapper().RESTMapping(gk)
		if meta.IsNoMatchError(err) {
			continue // the kind is gone, and its objects with it
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("looking up %s: %w", gk, err))
			continue
		}
		namespaces := []string{""}
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			namespaces = scope.Namespaces()
		}
		for _, ns := range namespaces {
			items, err := e.listKind(ctx, mapping, ns, setID)
			if err == nil {
				out = append(out, items...)
				continue
			}
			if kindGone(err) {
				break // the kind's CRD went after the lookup, and its objects with it
			}
			if gone, goneErr := e.namespaceGone(ctx, ns); goneErr == nil && gone {
				continue
			}
			if p := deniedRead(err, "list", mapping.Resource.GroupResource(), ns); p != nil {
				denied = append(denied, *p)
				continue
			}
			errs = append(errs, fmt.Errorf("listing %s members in %q: %w", gk, ns, err))
		}
	}
	return out, denied, errors.Join(errs...)
}

// listPermissions are the lists listMembers would make of kinds in scope.
// A kind the API server does not serve yet (the set installs its CRD) needs
// none: its first prune comes after the apply that serves it.
func (e *Engine) listPermissions(kinds sets.Set[schema.GroupKind], scope applyset.Scope) ([]Permission, error) {
	var perms []Permission
	for _, gk := range kinds.UnsortedList() {
		mapping, err := e.Client.RESTMapper().RESTMapping(gk)
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("looking up %s: %w", gk, err)
		}
		namespaces := []string{""}
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			namespaces = scope.Namespaces()
		}
		for _, ns := range namespaces {
			perms = append(perms, Permission{Verb: "list", Resource: mapping.Resource.GroupResource(), Namespace: ns})
		}
	}
	return perms, nil
}

// listKind lists the members of a kind in a namespace page by page, keeping
// of each only what a prune reads (compact).
func (e *Engine) listKind(ctx context.Context, mapping *meta.RESTMapping, namespace, setID string) ([]member, error) {
	gvk := mapping.GroupVersionKind
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(listKindOf(gvk))
	var out []member
	err := e.eachListed(ctx, e.reader(), list, func(obj runtime.Object) {
		if item, ok := obj.(*metav1.PartialObjectMetadata); ok {
			out = append(out, member{
				ref:      ObjectRef{GroupKind: gvk.GroupKind(), Namespace: item.Namespace, Name: item.Name},
				resource: mapping.Resource.GroupResource(),
				obj:      compact(item, gvk),
			})
		}
	}, client.InNamespace(namespace), client.MatchingLabels{applyset.PartOfLabel: setID})
	return out, err
}

// compact is a listed member as a prune keeps it: its metadata, copied out of
// its page, with of its managedFields only the entries that wrote the part-of
// label, without their field sets (applyset.WritesPartOf still counts them).
// Whole, the members' field sets were most of what a prune of a big set held.
func compact(item *metav1.PartialObjectMetadata, gvk schema.GroupVersionKind) *metav1.PartialObjectMetadata {
	out := &metav1.PartialObjectMetadata{ObjectMeta: item.ObjectMeta}
	out.SetGroupVersionKind(gvk)
	out.ManagedFields = nil
	for _, entry := range item.ManagedFields {
		if applyset.WritesPartOf(entry) {
			entry.FieldsV1, entry.FieldsType = nil, ""
			out.ManagedFields = append(out.ManagedFields, entry)
		}
	}
	return out
}

// kindGone reports whether err says the kind is no longer served: its CRD
// went away, and every object of it with it.
func kindGone(err error) bool {
	return meta.IsNoMatchError(err) || apierrors.IsNotFound(err)
}

// namespaceGone reports whether a namespace no longer exists; a cluster
// scope ("") always does.
func (e *Engine) namespaceGone(ctx context.Context, namespace string) (bool, error) {
	if namespace == "" || e.NamespaceExists == nil {
		return false, nil
	}
	exists, err := e.NamespaceExists(ctx, namespace)
	return !exists, err
}

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
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CascadeAnnotation set to "allow" on the declaration of a
// CustomResourceDefinition or Namespace lets its deletion take what else
// lives in it: every object of the kind, everything in the namespace.
const CascadeAnnotation = "apply.applyset.dev/cascade"

var (
	crdKind       = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	namespaceKind = schema.GroupKind{Kind: "Namespace"}
)

// Occupiable reports whether deleting an object of kind gk deletes other
// objects with it: a CRD takes every object of its kind, a Namespace
// everything in it.
func Occupiable(gk schema.GroupKind) bool {
	return gk == crdKind || gk == namespaceKind
}

// shownOccupants bounds the objects a kept member's reason names; it counts them all.
const shownOccupants = 3

// going is what a prune deletes: by UID, and by reference for the objects
// Kubernetes derives from members by name.
type going struct {
	uids sets.Set[types.UID]
	refs sets.Set[ObjectRef]
}

func goingOf(deletes []member) going {
	g := going{uids: sets.New[types.UID](), refs: sets.New[ObjectRef]()}
	for _, m := range deletes {
		g.uids.Insert(m.obj.UID)
		g.refs.Insert(m.ref)
	}
	return g
}

// guardCascades keeps, out of deletes, each CRD and Namespace whose deletion
// would take objects the prune does not delete, unless cascade allows it: a
// set deletes what it applied, not what others made of its types or put in
// its namespaces. The kept ones come back as Skipped changes that count and
// name those objects. A member already being deleted is not looked at: its
// deletion is done, and deleting it again takes nothing more.
func (e *Engine) guardCascades(ctx context.Context, deletes []member, cascade func(ObjectRef) bool) ([]member, []Change, error) {
	g := goingOf(deletes)
	var (
		out     = make([]member, 0, len(deletes))
		kept    []Change
		nsTypes *namespacedTypes // discovered once, when a Namespace needs it
	)
	for _, m := range deletes {
		if !Occupiable(m.ref.GroupKind) || (cascade != nil && cascade(m.ref)) || !m.obj.DeletionTimestamp.IsZero() {
			out = append(out, m)
			continue
		}
		var (
			reason string
			err    error
		)
		if m.ref.GroupKind == crdKind {
			reason, err = e.crdOccupied(ctx, m.ref.Name, g)
		} else {
			if nsTypes == nil {
				if nsTypes, err = e.discoverNamespaced(ctx); err != nil {
					return nil, nil, err
				}
			}
			reason, err = e.namespaceOccupied(ctx, m.ref.Name, *nsTypes, g)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("telling whether deleting %s would take objects the set does not delete: %w", m.ref, err)
		}
		if reason == "" {
			out = append(out, m)
			continue
		}
		kept = append(kept, Change{Ref: m.ref, Action: Skipped, Reason: reason})
	}
	return out, kept, nil
}

// crdOccupied says which objects of the kind the CRD named name defines
// exist besides those the prune deletes and those already being deleted, or
// "" when there are none.
func (e *Engine) crdOccupied(ctx context.Context, name string, g going) (string, error) {
	resource, group, _ := strings.Cut(name, ".") // a CRD's name is <plural>.<group>
	gvk, err := e.Client.RESTMapper().KindFor(schema.GroupVersionResource{Group: group, Resource: resource})
	if kindGone(err) {
		return "", nil // not served, so no object of it exists
	}
	if err != nil {
		return "", fmt.Errorf("looking up the kind of %s: %w", name, err)
	}
	var (
		count int
		names []string
	)
	err = e.listAll(ctx, gvk, "", func(obj *metav1.PartialObjectMetadata) {
		if g.uids.Has(obj.UID) || !obj.DeletionTimestamp.IsZero() {
			return
		}
		count++
		if len(names) < shownOccupants {
			names = append(names, keyName(obj.Namespace, obj.Name))
		}
	})
	kind := gvk.GroupKind().String()
	switch {
	case kindGone(err):
		return "", nil
	case unlistable(err):
		return fmt.Sprintf("cannot tell whether objects of its kind %s exist besides the members deleted, as it cannot list them (%s); "+
			"grant the set's identity list on them, or annotate the set's declaration of the CustomResourceDefinition %s: allow "+
			"to let its deletion take whatever exists", kind, whyUnlistable(err), CascadeAnnotation), nil
	case err != nil:
		return "", fmt.Errorf("listing %s: %w", kind, err)
	case count == 0:
		return "", nil
	}
	return fmt.Sprintf("%d %s that this prune does not delete %s (%s%s); %s", count, kind, plural(count, "still exists", "still exist"),
		strings.Join(names, ", "), more(count, len(names)), cascadeHint("CustomResourceDefinition")), nil
}

// keyName is namespace/name, or name alone for a cluster-scoped object.
func keyName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// cascadeHint says how to let a kept CRD or Namespace go.
func cascadeHint(kind string) string {
	return "its deletion would take them: delete them first, or annotate the set's declaration of the " + kind + " " +
		CascadeAnnotation + ": allow to let it take them"
}

// plural is one for a count of 1, many otherwise.
func plural(count int, one, many string) string {
	if count == 1 {
		return one
	}
	return many
}

// more counts the objects a list of names leaves out: ", ..." and how many.
func more(count, named int) string {
	if count <= named {
		return ""
	}
	return fmt.Sprintf(" and %d more", count-named)
}

// unlistable reports whether err says the objects cannot be listed, rather
// than that the list failed this time: the identity may not, the type
// serves no list, or an aggregated API is down.
func unlistable(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err) || apierrors.IsServiceUnavailable(err)
}

// listAll lists the metadata of the objects of gvk in namespace ("" for all),
// a page at a time (a kind can have many, and only their count and first
// names are kept), and hands each to each; each must not keep it.
func (e *Engine) listAll(ctx context.Context, gvk schema.GroupVersionKind, namespace string, each func(*metav1.PartialObjectMetadata)) error {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(listKindOf(gvk))
	return e.eachListed(ctx, e.reader(), list, func(obj runtime.Object) {
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
			each(m)
		}
	}, client.InNamespace(namespace))
}

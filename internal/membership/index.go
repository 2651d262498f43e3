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

// Package membership watches both sides of every ApplySet in the cluster,
// whatever tool wrote it: the parents (Parents) and the objects that claim to
// belong to a set (Index).
//
// Both run one metadata-only informer per resource type, filtered by the API
// server on the label that matters (the parent's ID, the member's part-of),
// so they cache only the metadata of parents and members: memory grows with
// them, not with the cluster. Resource types come from discovery and follow
// CustomResourceDefinitions as they come and go.
package membership

import (
	"cmp"
	"context"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Member is the metadata of one object that claims a set.
type Member struct {
	// SetID is the value of the object's part-of label.
	SetID     string
	GroupKind schema.GroupKind
	// Resource is the resource the object was listed from.
	Resource        schema.GroupVersionResource
	Namespace       string
	Name            string
	UID             types.UID
	ResourceVersion string
	OwnerReferences []metav1.OwnerReference
	// PartOfAppliedBy are the field managers that wrote the part-of label
	// with server-side apply. A label written by an update (kubectl label,
	// edit, client-side apply) has none: anyone who may update an object can
	// write it, so it proves nothing about who made the object a member.
	PartOfAppliedBy []string
	// DeletionTimestamp is set once the object is being deleted.
	DeletionTimestamp *metav1.Time
	// DependsOn is the object's depends-on annotation (apply.DependsOnAnnotation),
	// the only annotation the index keeps.
	DependsOn string
}

// String names the member for people: Kind.group namespace/name.
func (m Member) String() string {
	return applyset.ObjectName(m.GroupKind, m.Namespace, m.Name)
}

// Index is the membership index: every object of every listable type that
// carries the part-of label. Its methods are safe for concurrent use.
type Index struct {
	watcher *typeWatcher

	mu        sync.RWMutex
	listeners []func(setIDs ...string)
}

// New returns an index; Start runs it.
func New(opts Options) *Index {
	x := &Index{}
	x.watcher = newTypeWatcher(opts, watchConfig{
		label:     applyset.PartOfLabel,
		wants:     func(ResourceType, sets.Set[string]) bool { return true },
		transform: keepMemberMetadata,
		handler: func(ResourceType) cache.ResourceEventHandler {
			return cache.ResourceEventHandlerFuncs{
				AddFunc:    func(obj any) { x.notify(setIDOf(obj)) },
				UpdateFunc: func(old, obj any) { x.notify(setIDOf(old), setIDOf(obj)) },
				DeleteFunc: func(obj any) { x.notify(setIDOf(obj)) },
			}
		},
	})
	return x
}

// OnChange registers fn to be called with the set IDs an object claimed before
// and after each change the index sees. Register before Start.
func (x *Index) OnChange(fn func(setIDs ...string)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.listeners = append(x.listeners, fn)
}

// Start discovers the resource types and starts their informers, and follows
// CRDs as they come and go, until ctx ends.
func (x *Index) Start(ctx context.Context) error {
	return x.watcher.start(ctx)
}

func (x *Index) notify(setIDs ...string) {
	ids := slices.Compact(slices.DeleteFunc(slices.Sorted(slices.Values(setIDs)), func(id string) bool { return id == "" }))
	if len(ids) == 0 {
		return
	}
	x.mu.RLock()
	listeners := x.listeners
	x.mu.RUnlock()
	for _, fn := range listeners {
		fn(ids...)
	}
}

func setIDOf(obj any) string {
	return labelOf(obj, applyset.PartOfLabel)
}

// HasSynced reports whether every informer has listed its resource type once.
func (x *Index) HasSynced() bool {
	return x.watcher.hasSynced()
}

// SyncState says whether every type has listed, and which could not.
func (x *Index) SyncState() SyncState {
	return x.watcher.syncState()
}

// TypeOf returns the watched resource type of a kind.
func (x *Index) TypeOf(gk schema.GroupKind) (ResourceType, bool) {
	return x.watcher.typeOf(gk)
}

// TypeOfResource returns the watched resource type of a resource, as the
// deprecated contains-group-resources hint names it.
func (x *Index) TypeOfResource(gr schema.GroupResource) (ResourceType, bool) {
	return x.watcher.typeOfResource(gr)
}

// keepMemberMetadata keeps what verification needs: labels, owner references
// and, of the managed fields, only the entries of managers that applied the
// part-of label, without their field sets. Of the annotations it keeps the
// depends-on alone, which views of the members draw.
func keepMemberMetadata(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	var appliers []metav1.ManagedFieldsEntry
	// An entry without fields was kept by an earlier pass: informers may
	// transform an object more than once, and WritesPartOf keeps it.
	for _, manager := range applyset.PartOfAppliers(m.ManagedFields) {
		appliers = append(appliers, metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply})
	}
	var kept map[string]string
	if dependsOn, ok := m.Annotations[apply.DependsOnAnnotation]; ok {
		kept = map[string]string{apply.DependsOnAnnotation: dependsOn}
	}
	m.ManagedFields, m.Annotations = appliers, kept
	return m, nil
}

// memberOf is the Member m, listed as resource, is: as listed whole, or as
// keepMemberMetadata kept it, whose appliers' entries WritesPartOf still
// counts.
func memberOf(setID string, gk schema.GroupKind, resource schema.GroupVersionResource, m *metav1.PartialObjectMetadata) Member {
	return Member{
		SetID: setID, GroupKind: gk, Resource: resource,
		Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion,
		OwnerReferences: m.OwnerReferences, PartOfAppliedBy: applyset.PartOfAppliers(m.ManagedFields),
		DeletionTimestamp: m.DeletionTimestamp, DependsOn: m.Annotations[apply.DependsOnAnnotation],
	}
}

// Members returns the objects that claim the set with the given ID, sorted by
// group, kind, namespace and name.
func (x *Index) Members(setID string) []Member {
	objs := x.watcher.byValue(setID)
	members := make([]Member, 0, len(objs))
	for _, f := range objs {
		members = append(members, memberOf(setID, f.GroupKind, f.Resource, f.Object))
	}
	slices.SortFunc(members, compareMembers)
	return members
}

func compareMembers(a, b Member) int {
	return cmp.Or(cmp.Compare(a.GroupKind.Group, b.GroupKind.Group), cmp.Compare(a.GroupKind.Kind, b.GroupKind.Kind),
		cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// GroupKinds returns the kinds of the set's members.
func (x *Index) GroupKinds(setID string) sets.Set[schema.GroupKind] {
	gks := sets.New[schema.GroupKind]()
	for _, m := range x.Members(setID) {
		gks.Insert(m.GroupKind)
	}
	return gks
}

// SetIDs returns every set ID that some object claims.
func (x *Index) SetIDs() sets.Set[string] {
	return x.watcher.values()
}

// Resources returns the resource types the index watches.
func (x *Index) Resources() []schema.GroupVersionResource {
	return x.watcher.resources()
}

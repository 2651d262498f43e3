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

package membership

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// ParentRef names one parent object.
type ParentRef struct {
	// Type is the parent's resource type.
	Type ResourceType
	// Namespace is empty for cluster-scoped parents.
	Namespace string
	Name      string
}

// Key is the parent's identity in the ApplySet contract.
func (r ParentRef) Key() applyset.ParentKey {
	return applyset.ParentKey{GroupKind: r.Type.GroupKind, Namespace: r.Namespace, Name: r.Name}
}

func (r ParentRef) String() string { return r.Key().String() }

// builtInParentKinds are the kinds kubectl accepts as parents besides custom
// resources of labelled CRDs.
var builtInParentKinds = sets.New(schema.GroupKind{Kind: "Secret"}, schema.GroupKind{Kind: "ConfigMap"})

// Parents watches every parent in the cluster: Secrets and ConfigMaps with an
// ID label, and the objects with an ID label of every CRD labelled
// applyset.kubernetes.io/is-parent-type, following those CRDs as they come and
// go. It caches parent metadata without managed fields. Its methods are safe
// for concurrent use.
type Parents struct {
	watcher *typeWatcher

	mu        sync.RWMutex
	listeners []func(ParentRef)
	gone      []func(setID string)
}

// NewParents returns a parent tracker; Start runs it.
func NewParents(opts Options) *Parents {
	p := &Parents{}
	p.watcher = newTypeWatcher(opts, watchConfig{
		label:       applyset.IDLabel,
		crdSelector: applyset.ParentTypeLabel,
		wants: func(rt ResourceType, parentCRDs sets.Set[string]) bool {
			return builtInParentKinds.Has(rt.GroupKind) || parentCRDs.Has(rt.Resource.GroupResource().String())
		},
		// Verification reads the parent's annotations; managed fields are large and unread.
		transform: func(obj any) (any, error) {
			if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
				m.ManagedFields = nil
			}
			return obj, nil
		},
		handler: p.handler,
	})
	return p
}

// OnChange registers fn to hear of every parent that is created, changed or
// deleted. Register before Start.
func (p *Parents) OnChange(fn func(ParentRef)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, fn)
}

// OnDeleted registers fn to hear the ID of every parent that is deleted,
// whose members may now be orphans. Register before Start.
func (p *Parents) OnDeleted(fn func(setID string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone = append(p.gone, fn)
}

func (p *Parents) handler(rt ResourceType) cache.ResourceEventHandler {
	changed := func(obj any) {
		if m, ok := objectOf(obj); ok {
			p.mu.RLock()
			listeners := p.listeners
			p.mu.RUnlock()
			for _, fn := range listeners {
				fn(ParentRef{Type: rt, Namespace: m.Namespace, Name: m.Name})
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(_, obj any) { changed(obj) },
		DeleteFunc: func(obj any) {
			changed(obj)
			p.mu.RLock()
			gone := p.gone
			p.mu.RUnlock()
			for _, fn := range gone {
				fn(labelOf(obj, applyset.IDLabel))
			}
		},
	}
}

// Start lists the parents and follows them and their CRDs until ctx ends.
func (p *Parents) Start(ctx context.Context) error {
	return p.watcher.start(ctx)
}

// HasSynced reports whether the parent CRDs and the parents of every type
// have been listed once.
func (p *Parents) HasSynced() bool {
	return p.watcher.hasSynced()
}

// Get returns the cached metadata of a parent.
func (p *Parents) Get(ref ParentRef) (*metav1.PartialObjectMetadata, bool) {
	return p.watcher.get(ref.Type.Resource, ref.Namespace, ref.Name)
}

// ParentsOf returns the parent of the set with ID id: the object whose ID
// label is id and is its own. An object that carries a copied ID is no parent
// of that set (the KEP's ID impersonation), nor of any other.
func (p *Parents) ParentsOf(id string) []ParentRef {
	var out []ParentRef
	for _, f := range p.watcher.byValue(id) {
		ref := ParentRef{Type: f.ResourceType, Namespace: f.Object.Namespace, Name: f.Object.Name}
		if ref.Key().ID() == id {
			out = append(out, ref)
		}
	}
	return out
}

// SyncState says whether every parent type has listed, and which could not.
func (p *Parents) SyncState() SyncState {
	return p.watcher.syncState()
}

// All returns every watched parent, whatever its ID label, for verifying
// them all again.
func (p *Parents) All() []ParentRef {
	objs := p.watcher.all()
	out := make([]ParentRef, 0, len(objs))
	for _, f := range objs {
		out = append(out, ParentRef{Type: f.ResourceType, Namespace: f.Object.Namespace, Name: f.Object.Name})
	}
	return out
}

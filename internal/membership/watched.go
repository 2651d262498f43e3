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
	"cmp"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
)

// What a typeWatcher knows: whether its types have listed, and the objects
// its informers hold.

// hasSynced reports whether the followed CRDs and every watched type have
// been listed once.
func (w *typeWatcher) hasSynced() bool {
	state := w.syncState()
	return state.Listed && len(state.Failing) == 0
}

// SyncState says how far a watcher has listed its types.
type SyncState struct {
	// Listed is true when every type has listed once or failed to: the
	// caches hold all there is to know, but for the Failing types.
	Listed bool
	// Failing are the types that could not be listed, with the error.
	Failing []TypeFailure
}

// TypeFailure is a resource type that could not be listed.
type TypeFailure struct {
	ResourceType
	Err error
	// Namespace, when set, is the one namespace the type could be listed
	// in instead: its members elsewhere are the unknown ones.
	Namespace string
}

func (w *typeWatcher) syncState() SyncState {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.ctx == nil || !w.crds.HasSynced() {
		return SyncState{}
	}
	state := SyncState{Listed: true}
	timeout := cmp.Or(w.opts.ListTimeout, 15*time.Second)
	for _, ti := range w.informers {
		switch {
		case ti.informer.HasSynced():
		case ti.failure != nil:
			state.Failing = append(state.Failing, TypeFailure{ResourceType: ti.ResourceType, Err: ti.failure})
		case time.Since(ti.started) > timeout:
			state.Failing = append(state.Failing, TypeFailure{ResourceType: ti.ResourceType,
				Err: fmt.Errorf("has not finished listing after %s", timeout)})
		default:
			state.Listed = false
		}
	}
	slices.SortFunc(state.Failing, func(a, b TypeFailure) int { return cmp.Compare(a.Resource.String(), b.Resource.String()) })
	return state
}

// typeOf returns the watched type of a kind.
func (w *typeWatcher) typeOf(gk schema.GroupKind) (ResourceType, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, ti := range w.informers {
		if ti.GroupKind == gk {
			return ti.ResourceType, true
		}
	}
	return ResourceType{}, false
}

// typeOfResource returns the watched type of a resource, in any version.
func (w *typeWatcher) typeOfResource(gr schema.GroupResource) (ResourceType, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for gvr, ti := range w.informers {
		if gvr.GroupResource() == gr {
			return ti.ResourceType, true
		}
	}
	return ResourceType{}, false
}

// found is an object of a watched type.
type found struct {
	ResourceType
	Object *metav1.PartialObjectMetadata
}

// byValue returns the objects whose label has value, in no particular order.
func (w *typeWatcher) byValue(value string) []found {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var out []found
	for _, ti := range w.informers {
		objs, _ := ti.informer.GetIndexer().ByIndex(byLabel, value)
		for _, obj := range objs {
			if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
				out = append(out, found{ResourceType: ti.ResourceType, Object: m})
			}
		}
	}
	return out
}

// all returns every cached object of every watched type.
func (w *typeWatcher) all() []found {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var out []found
	for _, ti := range w.informers {
		for _, obj := range ti.informer.GetStore().List() {
			if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
				out = append(out, found{ResourceType: ti.ResourceType, Object: m})
			}
		}
	}
	return out
}

// get returns the cached object of a watched type.
func (w *typeWatcher) get(gvr schema.GroupVersionResource, namespace, name string) (*metav1.PartialObjectMetadata, bool) {
	w.mu.RLock()
	ti, ok := w.informers[gvr]
	w.mu.RUnlock()
	if !ok {
		return nil, false
	}
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	obj, exists, err := ti.informer.GetStore().GetByKey(key)
	if err != nil || !exists {
		return nil, false
	}
	m, ok := obj.(*metav1.PartialObjectMetadata)
	return m, ok
}

// values returns every value the label has on some watched object.
func (w *typeWatcher) values() sets.Set[string] {
	w.mu.RLock()
	defer w.mu.RUnlock()
	values := sets.New[string]()
	for _, ti := range w.informers {
		values.Insert(ti.informer.GetIndexer().ListIndexFuncValues(byLabel)...)
	}
	return values
}

// resources returns the watched resource types, sorted.
func (w *typeWatcher) resources() []schema.GroupVersionResource {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([]schema.GroupVersionResource, 0, len(w.informers))
	for gvr := range w.informers {
		out = append(out, gvr)
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionResource) int { return cmp.Compare(a.String(), b.String()) })
	return out
}

// stripMetadata drops what no caller reads: managed fields and annotations.
func stripMetadata(obj any) (any, error) {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		m.ManagedFields = nil
		m.Annotations = nil
	}
	return obj, nil
}

// objectOf unwraps the object of an informer event.
func objectOf(obj any) (*metav1.PartialObjectMetadata, bool) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	m, ok := obj.(*metav1.PartialObjectMetadata)
	return m, ok
}

func labelOf(obj any, label string) string {
	if m, ok := objectOf(obj); ok {
		return m.Labels[label]
	}
	return ""
}

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
	"fmt"
	"slices"
	"sync"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// DefaultMaxWatchedDependencyKinds bounds the kinds of the objects sets
// depend on that are watched at once: each watch keeps the metadata of every
// object of its kind in memory.
const DefaultMaxWatchedDependencyKinds = 32

// dependencyWatches wake the sets that wait for objects (spec.dependsOn
// entries with apiVersion) when those objects change. One metadata-only
// watch per kind runs while some set depends on that kind, and stops when
// none does. A watch only wakes a set: the set reads the object as its own
// identity. Both set reconcilers share it.
type dependencyWatches struct {
	metadata metadata.Interface
	max      int

	mu sync.Mutex
	// base is the context watches run in: the controllers'.
	base   context.Context
	kinds  map[schema.GroupKind]*kindWatch
	queues map[applyv1alpha1.SetKind]workqueue.TypedRateLimitingInterface[reconcile.Request]
}

// kindWatch is the watch of one kind and the sets that depend on its objects.
type kindWatch struct {
	cancel context.CancelFunc
	sets   map[setKey]*watchingSet
}

// watchingSet is what one set depends on of a kind, and whether it waits.
type watchingSet struct {
	objects []types.NamespacedName
	waiting bool
}

func newDependencyWatches(client metadata.Interface, maxKinds int) *dependencyWatches {
	if maxKinds <= 0 {
		maxKinds = DefaultMaxWatchedDependencyKinds
	}
	return &dependencyWatches{metadata: client, max: maxKinds, kinds: map[schema.GroupKind]*kindWatch{},
		queues: map[applyv1alpha1.SetKind]workqueue.TypedRateLimitingInterface[reconcile.Request]{}}
}

// source hands the watches the work queue of the sets of kind.
func (w *dependencyWatches) source(kind applyv1alpha1.SetKind) source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.queues[kind] = q
		if w.base == nil {
			w.base = ctx
		}
		return nil
	})
}

// watchedObject is one object a set depends on, with how it is served.
type watchedObject struct {
	mapping *apimeta.RESTMapping
	key     types.NamespacedName
}

// want records the objects set depends on, starts the watches of their
// kinds not watched yet and stops those no set needs any more. waiting says
// whether their changes wake the set. It returns, per kind that is not
// watched, why: the set must then look again by itself.
func (w *dependencyWatches) want(ctx context.Context, set setKey, objects []watchedObject, waiting bool) map[schema.GroupKind]string {
	byKind := map[schema.GroupKind]*watchedObject{}
	names := map[schema.GroupKind][]types.NamespacedName{}
	for i, o := range objects {
		gk := o.mapping.GroupVersionKind.GroupKind()
		if byKind[gk] == nil {
			byKind[gk] = &objects[i]
		}
		names[gk] = append(names[gk], o.key)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropLocked(set, func(gk schema.GroupKind) bool { return byKind[gk] == nil })
	unwatched := map[schema.GroupKind]string{}
	for gk, first := range byKind {
		kw := w.kinds[gk]
		if kw == nil {
			var why string
			if kw, why = w.startLocked(ctx, first.mapping); kw == nil {
				unwatched[gk] = why
				continue
			}
		}
		kw.sets[set] = &watchingSet{objects: names[gk], waiting: waiting}
	}
	return unwatched
}

// release forgets what set depends on; watches no set needs stop.
func (w *dependencyWatches) release(set setKey) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropLocked(set, func(schema.GroupKind) bool { return true })
}

func (w *dependencyWatches) dropLocked(set setKey, drop func(schema.GroupKind) bool) {
	for gk, kw := range w.kinds {
		if _, ok := kw.sets[set]; !ok || !drop(gk) {
			continue
		}
		delete(kw.sets, set)
		if len(kw.sets) == 0 {
			kw.cancel()
			delete(w.kinds, gk)
		}
	}
}

// startLocked starts the watch of a kind, or says why it does not: too many
// kinds are watched, or the operator may not list the kind.
func (w *dependencyWatches) startLocked(ctx context.Context, mapping *apimeta.RESTMapping) (*kindWatch, string) {
	gk := mapping.GroupVersionKind.GroupKind()
	switch {
	case w.base == nil:
		return nil, "the operator is still starting"
	case len(w.kinds) >= w.max:
		return nil, fmt.Sprintf("it watches objects of %d kinds already, its limit (--max-watched-dependency-kinds)", w.max)
	}
	// A list of one proves the right the watch needs, and fails fast where
	// an informer would retry forever.
	if _, err := w.metadata.Resource(mapping.Resource).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return nil, fmt.Sprintf("it cannot list %s: %v", mapping.Resource.GroupResource(), err)
	}
	informer := metadatainformer.NewFilteredMetadataInformer(w.metadata, mapping.Resource, metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()
	wake := func(obj any) { w.changed(gk, obj) }
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: wake, DeleteFunc: wake,
		UpdateFunc: func(_, obj any) { wake(obj) }}); err != nil {
		return nil, fmt.Sprintf("it cannot watch %s: %v", mapping.Resource.GroupResource(), err)
	}
	watchCtx, cancel := context.WithCancel(w.base)
	logger := log.FromContext(w.base).WithValues("kind", gk.String())
	if err := informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		logger.Error(err, "Watching the objects sets depend on")
	}); err != nil {
		cancel()
		return nil, fmt.Sprintf("it cannot watch %s: %v", mapping.Resource.GroupResource(), err)
	}
	go informer.RunWithContext(watchCtx)
	logger.V(1).Info("Watching the objects sets depend on")
	kw := &kindWatch{cancel: cancel, sets: map[setKey]*watchingSet{}}
	w.kinds[gk] = kw
	return kw, ""
}

// changed wakes the waiting sets that depend on obj.
func (w *dependencyWatches) changed(gk schema.GroupKind, obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	accessor, err := apimeta.Accessor(obj)
	if err != nil {
		return
	}
	key := types.NamespacedName{Namespace: accessor.GetNamespace(), Name: accessor.GetName()}
	w.mu.Lock()
	defer w.mu.Unlock()
	kw := w.kinds[gk]
	if kw == nil {
		return
	}
	for set, ws := range kw.sets {
		if q := w.queues[set.kind]; q != nil && ws.waiting && slices.Contains(ws.objects, key) {
			q.Add(reconcile.Request{NamespacedName: set.NamespacedName})
		}
	}
}

// watchedKinds are the kinds watched now, for tests.
func (w *dependencyWatches) watchedKinds() []schema.GroupKind {
	w.mu.Lock()
	defer w.mu.Unlock()
	kinds := make([]schema.GroupKind, 0, len(w.kinds))
	for gk := range w.kinds {
		kinds = append(kinds, gk)
	}
	return kinds
}

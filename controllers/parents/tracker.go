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

package parents

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Request names one parent object to reconcile.
type Request struct {
	// Type is the parent's resource type.
	Type ParentType
	// Namespace is empty for cluster-scoped parents.
	Namespace string
	Name      string
}

func (r Request) String() string {
	return applyset.ParentKey{GroupKind: r.Type.GroupKind, Namespace: r.Namespace, Name: r.Name}.String()
}

// ParentType is a resource type whose objects may be ApplySet parents.
type ParentType struct {
	Resource   schema.GroupVersionResource
	GroupKind  schema.GroupKind
	Namespaced bool
}

// The built-in parent types kubectl accepts.
var (
	secretParents    = ParentType{Resource: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, GroupKind: schema.GroupKind{Kind: "Secret"}, Namespaced: true}
	configMapParents = ParentType{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespaced: true}
	crdResource      = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

const byID = "setID"

// Tracker watches every parent in the cluster: Secrets and ConfigMaps with an ID
// label, and the objects with an ID label of every CRD labelled
// applyset.kubernetes.io/is-parent-type, following those CRDs as they come and go.
// It caches parent metadata only and feeds changes into a controller's queue.
type Tracker struct {
	metadata metadata.Interface
	dynamic  dynamic.Interface
	log      logr.Logger

	mu       sync.RWMutex
	ctx      context.Context
	queue    workqueue.TypedRateLimitingInterface[Request]
	watching map[ParentType]*parentInformer
	crds     cache.SharedIndexInformer
	gone     []func(setID string)
}

type parentInformer struct {
	informer cache.SharedIndexInformer
	stop     context.CancelFunc
}

// NewTracker returns a tracker; it starts as a controller source.
func NewTracker(md metadata.Interface, dyn dynamic.Interface, log logr.Logger) *Tracker {
	return &Tracker{metadata: md, dynamic: dyn, log: log, watching: map[ParentType]*parentInformer{}}
}

// Start runs the tracker's informers until ctx ends, adding a request to queue
// for every parent that changes. It implements source.TypedSource.
func (t *Tracker) Start(ctx context.Context, queue workqueue.TypedRateLimitingInterface[Request]) error {
	t.mu.Lock()
	t.ctx, t.queue = ctx, queue
	t.mu.Unlock()
	t.watch(secretParents)
	t.watch(configMapParents)

	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(t.dynamic, 0, metav1.NamespaceAll,
		func(o *metav1.ListOptions) { o.LabelSelector = applyset.ParentTypeLabel })
	crds := factory.ForResource(crdResource).Informer()
	_, err := crds.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    t.crdChanged,
		UpdateFunc: func(_, obj any) { t.crdChanged(obj) },
		DeleteFunc: t.crdDeleted,
	})
	if err != nil {
		return fmt.Errorf("watching parent CRDs: %w", err)
	}
	t.mu.Lock()
	t.crds = crds
	t.mu.Unlock()
	go crds.RunWithContext(ctx)
	return nil
}

// HasSynced reports whether the parent CRDs and the parents of every type seen
// so far have been listed once.
func (t *Tracker) HasSynced() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.crds == nil || !t.crds.HasSynced() {
		return false
	}
	for _, pi := range t.watching {
		if !pi.informer.HasSynced() {
			return false
		}
	}
	return true
}

func (t *Tracker) String() string { return "applyset parents" }

// OnParentDeleted registers fn to hear the ID of every parent that is deleted,
// whose members may now be orphans. Register before Start.
func (t *Tracker) OnParentDeleted(fn func(setID string)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gone = append(t.gone, fn)
}

func (t *Tracker) crdChanged(obj any) {
	if pt, ok := parentTypeOfCRD(obj); ok {
		t.watch(pt)
	}
}

func (t *Tracker) crdDeleted(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	pt, ok := parentTypeOfCRD(obj)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if pi, ok := t.watching[pt]; ok {
		pi.stop()
		delete(t.watching, pt)
		t.log.Info("Stopped watching parent type", "resource", pt.Resource.String())
	}
}

// parentTypeOfCRD reads the resource type a CRD serves, at its storage version.
func parentTypeOfCRD(obj any) (ParentType, bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return ParentType{}, false
	}
	group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
	kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
	versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
	for _, v := range versions {
		version, _ := v.(map[string]any)
		if storage, _ := version["storage"].(bool); storage {
			name, _ := version["name"].(string)
			return ParentType{
				Resource:   schema.GroupVersionResource{Group: group, Version: name, Resource: plural},
				GroupKind:  schema.GroupKind{Group: group, Kind: kind},
				Namespaced: scope == "Namespaced",
			}, plural != "" && kind != "" && name != ""
		}
	}
	return ParentType{}, false
}

func (t *Tracker) watch(pt ParentType) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.watching[pt]; ok || t.ctx == nil {
		return
	}
	informer := metadatainformer.NewFilteredMetadataInformer(t.metadata, pt.Resource, metav1.NamespaceAll, 0,
		cache.Indexers{byID: func(obj any) ([]string, error) {
			if m, ok := obj.(*metav1.PartialObjectMetadata); ok && m.Labels[applyset.IDLabel] != "" {
				return []string{m.Labels[applyset.IDLabel]}, nil
			}
			return nil, nil
		}},
		func(o *metav1.ListOptions) { o.LabelSelector = applyset.IDLabel }).Informer()
	_ = informer.SetTransform(func(obj any) (any, error) {
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
			m.ManagedFields = nil
		}
		return obj, nil
	})
	enqueue := func(obj any) {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
			t.queue.Add(Request{Type: pt, Namespace: m.Namespace, Name: m.Name})
		}
	}
	deleted := func(obj any) {
		enqueue(obj)
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
			for _, fn := range t.gone {
				fn(m.Labels[applyset.IDLabel])
			}
		}
	}
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: deleted,
	})
	ctx, stop := context.WithCancel(t.ctx)
	go informer.RunWithContext(ctx)
	t.watching[pt] = &parentInformer{informer: informer, stop: stop}
	t.log.Info("Watching parent type", "resource", pt.Resource.String())
}

// Get returns the cached metadata of a parent.
func (t *Tracker) Get(req Request) (*metav1.PartialObjectMetadata, bool) {
	t.mu.RLock()
	pi, ok := t.watching[req.Type]
	t.mu.RUnlock()
	if !ok {
		return nil, false
	}
	key := req.Name
	if req.Namespace != "" {
		key = req.Namespace + "/" + req.Name
	}
	obj, exists, err := pi.informer.GetStore().GetByKey(key)
	if err != nil || !exists {
		return nil, false
	}
	m, ok := obj.(*metav1.PartialObjectMetadata)
	return m, ok
}

// ParentsOf returns the parents whose ID label is id: normally one, more when an
// ID was copied.
func (t *Tracker) ParentsOf(id string) []Request {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []Request
	for pt, pi := range t.watching {
		objs, _ := pi.informer.GetIndexer().ByIndex(byID, id)
		for _, obj := range objs {
			if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
				out = append(out, Request{Type: pt, Namespace: m.Namespace, Name: m.Name})
			}
		}
	}
	return out
}

// Enqueue asks for the parents of the given set IDs to be reconciled.
func (t *Tracker) Enqueue(ids ...string) {
	t.mu.RLock()
	queue := t.queue
	t.mu.RUnlock()
	if queue == nil {
		return
	}
	for _, id := range ids {
		for _, req := range t.ParentsOf(id) {
			queue.Add(req)
		}
	}
}

// Requests returns a request for every parent known, for periodic re-verification.
func (t *Tracker) Requests() []Request {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []Request
	for pt, pi := range t.watching {
		for _, obj := range pi.informer.GetStore().List() {
			if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
				out = append(out, Request{Type: pt, Namespace: m.Namespace, Name: m.Name})
			}
		}
	}
	return out
}

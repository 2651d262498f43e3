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

// Package membership keeps an index of every object in the cluster that claims
// to belong to an ApplySet (has the applyset.kubernetes.io/part-of label).
//
// It runs one metadata-only informer per listable resource type, filtered on
// that label by the API server, so it caches only the metadata of members:
// memory grows with the members, not with the cluster. Resource types come from
// discovery and follow CustomResourceDefinitions as they come and go.
package membership

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

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
}

// Options configure an Index.
type Options struct {
	// Discovery lists the resource types of the cluster.
	Discovery discovery.DiscoveryInterface
	// Metadata lists and watches object metadata.
	Metadata metadata.Interface
	// Resync is how often informers replay their caches; 0 never.
	Resync time.Duration
	// RefreshInterval is how often discovery is read again even when no CRD
	// changed, a guard against missed events; 0 means every 10 minutes.
	RefreshInterval time.Duration
	// Log receives progress and errors.
	Log logr.Logger
}

// crdResource is watched (metadata only) so that new and removed resource types are noticed.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// refreshDelay gives a changed CRD's resource time to appear in, or leave, discovery.
const refreshDelay = 250 * time.Millisecond

// Index is the membership index. Its methods are safe for concurrent use.
type Index struct {
	opts Options

	mu        sync.RWMutex
	informers map[schema.GroupVersionResource]*resourceInformer
	listeners []func(setIDs ...string)
	ctx       context.Context
}

type resourceInformer struct {
	groupKind schema.GroupKind
	informer  cache.SharedIndexInformer
	stop      context.CancelFunc
}

const bySetID = "setID"

// New returns an index; Start runs it.
func New(opts Options) *Index {
	if opts.Log.GetSink() == nil {
		opts.Log = logr.Discard()
	}
	return &Index{opts: opts, informers: map[schema.GroupVersionResource]*resourceInformer{}}
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
	x.mu.Lock()
	x.ctx = ctx
	x.mu.Unlock()
	if err := x.Refresh(ctx); err != nil {
		return err
	}

	changed := make(chan struct{}, 1)
	signal := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	crds := metadatainformer.NewFilteredMetadataInformer(x.opts.Metadata, crdResource, metav1.NamespaceAll, 0, nil, nil).Informer()
	_ = crds.SetTransform(stripMetadata)
	_, _ = crds.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: signal, UpdateFunc: func(_, obj any) { signal(obj) }, DeleteFunc: signal,
	})
	go crds.RunWithContext(ctx)
	go x.refreshLoop(ctx, changed, crds.GetStore())
	return nil
}

func (x *Index) refreshLoop(ctx context.Context, changed <-chan struct{}, crds cache.Store) {
	interval := cmp.Or(x.opts.RefreshInterval, 10*time.Minute)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			x.refresh(ctx)
		case <-changed:
			x.followCRDs(ctx, crds)
		}
	}
}

// followCRDs refreshes until discovery serves the resource of every CRD, or
// gives up after a while: the API server publishes a new CRD's resource in
// discovery a moment after the CRD itself appears.
func (x *Index) followCRDs(ctx context.Context, crds cache.Store) {
	delay := refreshDelay
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		x.refresh(ctx)
		if x.servesAll(crds) || time.Now().After(deadline) {
			return
		}
		delay = min(2*delay, 4*time.Second)
	}
}

// servesAll reports whether every CRD's resource (named <plural>.<group>) is
// watched; deleted CRDs are gone from the store, so this also waits for nothing.
func (x *Index) servesAll(crds cache.Store) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	watched := sets.New[string]()
	for gvr := range x.informers {
		watched.Insert(gvr.GroupResource().String())
	}
	for _, name := range crds.ListKeys() {
		if !watched.Has(name) {
			return false
		}
	}
	return true
}

func (x *Index) refresh(ctx context.Context) {
	if err := x.Refresh(ctx); err != nil {
		x.opts.Log.Error(err, "Refreshing the resource types of the membership index")
	}
}

// Refresh re-reads discovery, starts informers for new resource types and stops
// those of types that are gone. A partial discovery failure (an aggregated API
// that does not answer) keeps the informers of the groups it could not read.
func (x *Index) Refresh(ctx context.Context) error {
	lists, err := preferredResources(ctx, x.opts.Discovery)
	var failed *discovery.ErrGroupDiscoveryFailed
	if err != nil && !errors.As(err, &failed) {
		return fmt.Errorf("discovering resource types: %w", err)
	}
	wanted := listableResources(lists)

	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ctx == nil {
		return errors.New("the membership index is not started")
	}
	for gvr, ri := range x.informers {
		if _, ok := wanted[gvr]; ok || (failed != nil && failed.Groups[gvr.GroupVersion()] != nil) {
			continue
		}
		ri.stop()
		delete(x.informers, gvr)
		x.opts.Log.V(1).Info("Stopped watching members", "resource", gvr.String())
	}
	for gvr, gk := range wanted {
		if _, ok := x.informers[gvr]; ok {
			continue
		}
		x.informers[gvr] = x.startInformer(gvr, gk)
		x.opts.Log.V(1).Info("Watching members", "resource", gvr.String())
	}
	if failed != nil {
		return fmt.Errorf("discovering resource types, continuing with the rest: %w", err)
	}
	return nil
}

func preferredResources(ctx context.Context, d discovery.DiscoveryInterface) ([]*metav1.APIResourceList, error) {
	if withContext, ok := d.(discovery.DiscoveryInterfaceWithContext); ok {
		return discovery.ServerPreferredResourcesWithContext(ctx, withContext)
	}
	return discovery.ServerPreferredResources(d)
}

// listableResources maps the resource types that support list and watch, without
// subresources, to their kinds.
func listableResources(lists []*metav1.APIResourceList) map[schema.GroupVersionResource]schema.GroupKind {
	out := map[schema.GroupVersionResource]schema.GroupKind{}
	for _, list := range discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"list", "watch"}}, lists) {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			out[gv.WithResource(r.Name)] = schema.GroupKind{Group: gv.Group, Kind: r.Kind}
		}
	}
	return out
}

func (x *Index) startInformer(gvr schema.GroupVersionResource, gk schema.GroupKind) *resourceInformer {
	informer := metadatainformer.NewFilteredMetadataInformer(x.opts.Metadata, gvr, metav1.NamespaceAll, x.opts.Resync,
		cache.Indexers{bySetID: indexBySetID},
		func(o *metav1.ListOptions) { o.LabelSelector = applyset.PartOfLabel }).Informer()
	// Only what verification needs stays in memory: no managed fields, no annotations.
	_ = informer.SetTransform(stripMetadata)
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { x.notify(setIDOf(obj)) },
		UpdateFunc: func(old, obj any) { x.notify(setIDOf(old), setIDOf(obj)) },
		DeleteFunc: func(obj any) { x.notify(setIDOf(obj)) },
	})
	ctx, stop := context.WithCancel(x.ctx)
	go informer.RunWithContext(ctx)
	return &resourceInformer{groupKind: gk, informer: informer, stop: stop}
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

func stripMetadata(obj any) (any, error) {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		m.ManagedFields = nil
		m.Annotations = nil
	}
	return obj, nil
}

func setIDOf(obj any) string {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return m.Labels[applyset.PartOfLabel]
	}
	return ""
}

func indexBySetID(obj any) ([]string, error) {
	if id := setIDOf(obj); id != "" {
		return []string{id}, nil
	}
	return nil, nil
}

// HasSynced reports whether every informer has listed its resource type once.
func (x *Index) HasSynced() bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for _, ri := range x.informers {
		if !ri.informer.HasSynced() {
			return false
		}
	}
	return x.ctx != nil
}

// Members returns the objects that claim the set with the given ID, sorted by
// group, kind, namespace and name.
func (x *Index) Members(setID string) []Member {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var members []Member
	for gvr, ri := range x.informers {
		objs, err := ri.informer.GetIndexer().ByIndex(bySetID, setID)
		if err != nil {
			continue
		}
		for _, obj := range objs {
			if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
				members = append(members, Member{
					SetID: setID, GroupKind: ri.groupKind, Resource: gvr,
					Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion,
					OwnerReferences: m.OwnerReferences,
				})
			}
		}
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
	x.mu.RLock()
	defer x.mu.RUnlock()
	ids := sets.New[string]()
	for _, ri := range x.informers {
		ids.Insert(ri.informer.GetIndexer().ListIndexFuncValues(bySetID)...)
	}
	return ids
}

// Resources returns the resource types the index watches.
func (x *Index) Resources() []schema.GroupVersionResource {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]schema.GroupVersionResource, 0, len(x.informers))
	for gvr := range x.informers {
		out = append(out, gvr)
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionResource) int { return cmp.Compare(a.String(), b.String()) })
	return out
}

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
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// Options configure an Index or a Parents tracker.
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
	// ListTimeout is how long a type may take to list before it counts as
	// failing, so that a list that hangs (as one of a type whose conversion
	// webhook is away can) does not hold up the others; 0 means 15 seconds.
	ListTimeout time.Duration
	// Log receives progress and errors.
	Log logr.Logger
}

// ResourceType is a resource type and the kind of its objects.
type ResourceType struct {
	Resource  schema.GroupVersionResource
	GroupKind schema.GroupKind
	// Namespaced is false for cluster-scoped types.
	Namespaced bool
}

// crdResource is watched (metadata only) so that new and removed resource types are noticed.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// refreshDelay gives a changed CRD's resource time to appear in, or leave, discovery.
const refreshDelay = 250 * time.Millisecond

// byLabel is the informers' index of objects by the value of the watched label.
const byLabel = "label"

// watchConfig says what a typeWatcher watches.
type watchConfig struct {
	// label is the label whose objects are listed, indexed by its value.
	label string
	// crdSelector filters the CRDs followed; empty follows every CRD.
	crdSelector string
	// wants chooses the resource types to watch among those discovery serves;
	// crds holds the names of the followed CRDs.
	wants func(rt ResourceType, crds sets.Set[string]) bool
	// transform trims what informers keep of each object.
	transform cache.TransformFunc
	// handler receives the changes of the objects of one resource type.
	handler func(rt ResourceType) cache.ResourceEventHandler
}

// typeWatcher keeps one metadata-only informer per wanted resource type, each
// listing only the objects that carry a label, and follows CustomResourceDefinitions
// as they come and go by reading discovery again. Index and Parents are both
// built on it.
type typeWatcher struct {
	opts Options
	cfg  watchConfig

	mu        sync.RWMutex
	ctx       context.Context
	crds      cache.SharedIndexInformer
	informers map[schema.GroupVersionResource]*typeInformer
}

type typeInformer struct {
	ResourceType
	informer cache.SharedIndexInformer
	stop     context.CancelFunc

	// failure is the last error listing or watching the type, while it has
	// not listed once; guarded by the watcher's mutex.
	failure error
	started time.Time
}

func newTypeWatcher(opts Options, cfg watchConfig) *typeWatcher {
	if opts.Log.GetSink() == nil {
		opts.Log = logr.Discard()
	}
	return &typeWatcher{opts: opts, cfg: cfg, informers: map[schema.GroupVersionResource]*typeInformer{}}
}

// start lists the followed CRDs, starts the informers of the wanted types and
// follows CRDs until ctx ends.
func (w *typeWatcher) start(ctx context.Context) error {
	changed := make(chan struct{}, 1)
	signal := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	crds := metadatainformer.NewFilteredMetadataInformer(w.opts.Metadata, crdResource, metav1.NamespaceAll, 0, nil,
		func(o *metav1.ListOptions) { o.LabelSelector = w.cfg.crdSelector }).Informer()
	_ = crds.SetTransform(stripMetadata)
	_, _ = crds.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: signal, UpdateFunc: func(_, obj any) { signal(obj) }, DeleteFunc: signal,
	})
	w.mu.Lock()
	w.ctx, w.crds = ctx, crds
	w.mu.Unlock()
	go crds.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), crds.HasSynced) {
		return errors.New("listing CustomResourceDefinitions did not finish before the stop")
	}
	if err := w.refresh(ctx); err != nil {
		return err
	}
	go w.refreshLoop(ctx, changed)
	return nil
}

func (w *typeWatcher) refreshLoop(ctx context.Context, changed <-chan struct{}) {
	ticker := time.NewTicker(cmp.Or(w.opts.RefreshInterval, 10*time.Minute))
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			w.logRefresh(ctx)
		case <-changed:
			w.followCRDs(ctx)
		}
	}
}

// followCRDs refreshes until discovery serves the resource of every followed
// CRD, or gives up after a while: the API server publishes a new CRD's
// resource in discovery a moment after the CRD itself appears.
func (w *typeWatcher) followCRDs(ctx context.Context) {
	delay := refreshDelay
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		w.logRefresh(ctx)
		if w.servesAllCRDs() || time.Now().After(deadline) {
			return
		}
		delay = min(2*delay, 4*time.Second)
	}
}

// servesAllCRDs reports whether every followed CRD's resource (named
// <plural>.<group>) is watched; deleted CRDs are gone from the store, so this
// also waits for nothing.
func (w *typeWatcher) servesAllCRDs() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	watched := sets.New[string]()
	for gvr := range w.informers {
		watched.Insert(gvr.GroupResource().String())
	}
	return watched.HasAll(w.crds.GetStore().ListKeys()...)
}

func (w *typeWatcher) logRefresh(ctx context.Context) {
	if err := w.refresh(ctx); err != nil {
		w.opts.Log.Error(err, "Refreshing the watched resource types")
	}
}

// refresh re-reads discovery, starts informers for new wanted types and stops
// those of types that are gone. A partial discovery failure (an aggregated API
// that does not answer) keeps the informers of the groups it could not read.
func (w *typeWatcher) refresh(ctx context.Context) error {
	lists, err := preferredResources(ctx, w.opts.Discovery)
	var failed *discovery.ErrGroupDiscoveryFailed
	if err != nil && !errors.As(err, &failed) {
		return fmt.Errorf("discovering resource types: %w", err)
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx == nil {
		return errors.New("the watcher is not started")
	}
	crds := sets.New(w.crds.GetStore().ListKeys()...)
	wanted := map[schema.GroupVersionResource]ResourceType{}
	for _, rt := range listableResources(lists) {
		if w.cfg.wants(rt, crds) {
			wanted[rt.Resource] = rt
		}
	}
	for gvr, ti := range w.informers {
		if _, ok := wanted[gvr]; ok || (failed != nil && failed.Groups[gvr.GroupVersion()] != nil) {
			continue
		}
		ti.stop()
		delete(w.informers, gvr)
		w.opts.Log.V(1).Info("Stopped watching", "resource", gvr.String())
	}
	for gvr, rt := range wanted {
		if _, ok := w.informers[gvr]; !ok {
			w.informers[gvr] = w.startInformer(rt)
			w.opts.Log.V(1).Info("Watching", "resource", gvr.String())
		}
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

// listableResources returns the resource types that support list and watch,
// without subresources.
func listableResources(lists []*metav1.APIResourceList) []ResourceType {
	var out []ResourceType
	for _, list := range discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"list", "watch"}}, lists) {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if !strings.Contains(r.Name, "/") {
				out = append(out, ResourceType{Resource: gv.WithResource(r.Name),
					GroupKind: schema.GroupKind{Group: gv.Group, Kind: r.Kind}, Namespaced: r.Namespaced})
			}
		}
	}
	return out
}

// startInformer runs an informer of rt's objects that carry the label. The
// caller holds w.mu.
func (w *typeWatcher) startInformer(rt ResourceType) *typeInformer {
	label := w.cfg.label
	informer := metadatainformer.NewFilteredMetadataInformer(w.opts.Metadata, rt.Resource, metav1.NamespaceAll, w.opts.Resync,
		cache.Indexers{byLabel: func(obj any) ([]string, error) {
			if value := labelOf(obj, label); value != "" {
				return []string{value}, nil
			}
			return nil, nil
		}},
		func(o *metav1.ListOptions) { o.LabelSelector = label }).Informer()
	_ = informer.SetTransform(w.cfg.transform)
	_, _ = informer.AddEventHandler(w.cfg.handler(rt))
	ti := &typeInformer{ResourceType: rt, informer: informer, started: time.Now()}
	// A type that cannot be listed (no permission, a conversion webhook that
	// does not answer) never syncs; its error is kept so that callers can go
	// on with the other types and say what is missing.
	_ = informer.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		cache.DefaultWatchErrorHandler(ctx, r, err)
		w.mu.Lock()
		defer w.mu.Unlock()
		if !informer.HasSynced() {
			if ti.failure == nil {
				w.opts.Log.Error(err, "Cannot list a resource type; its objects are missing until it can", "resource", rt.Resource.String())
			}
			ti.failure = err
		}
	})
	ctx, stop := context.WithCancel(w.ctx)
	ti.stop = stop
	go informer.RunWithContext(ctx)
	return ti
}

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
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/membership"
)

// The parent reconciler reads the metadata of every listable type to find
// members, writes hints on parents, and may delete orphans.
// +kubebuilder:rbac:groups=*,resources=*,verbs=get;list;watch
// +kubebuilder:rbac:groups=*,resources=*,verbs=patch;delete

// Options configure the parent and orphan reconcilers.
type Options struct {
	// RepairTooling names the toolings whose parents' hints the operator may rewrite.
	RepairTooling []string
	// OrphanPolicy is report or delete.
	OrphanPolicy OrphanPolicy
	// OrphanGracePeriod is how long an orphan is reported before it is deleted.
	OrphanGracePeriod time.Duration
	// Resync is how often every parent and set is verified again without an event.
	Resync time.Duration
}

// SetupWithManager adds the membership index, the parent reconciler and the
// orphan reconciler to mgr.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.OrphanPolicy != OrphanReport && opts.OrphanPolicy != OrphanDelete {
		return fmt.Errorf("orphan policy %q is neither %s nor %s", opts.OrphanPolicy, OrphanReport, OrphanDelete)
	}
	// Listing every type includes deprecated ones (v1 Endpoints); their
	// deprecation warnings would be noise in the operator's log.
	cfg := rest.CopyConfig(mgr.GetConfig())
	cfg.WarningHandler = rest.NoWarnings{}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("metadata client: %w", err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("discovery client: %w", err)
	}
	log := mgr.GetLogger().WithName("parents")
	index := membership.New(membership.Options{Discovery: disco, Metadata: md, Log: log.WithName("membership")})
	tracker := membership.NewParents(membership.Options{Discovery: disco, Metadata: md, Log: log.WithName("tracker")})
	recorder := mgr.GetEventRecorder(identity.EventReporter)

	parentRefs := &queueHolder[membership.ParentRef]{}
	parents, err := controller.NewTyped("applyset-parents", mgr, controller.TypedOptions[membership.ParentRef]{
		Reconciler: &Reconciler{
			Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Parents: tracker, Index: index, Recorder: recorder,
			RepairTooling: sets.New(opts.RepairTooling...), Resync: opts.Resync,
		},
	})
	if err != nil {
		return err
	}
	if err := parents.Watch(source.TypedFunc[membership.ParentRef](parentRefs.start)); err != nil {
		return err
	}

	setIDs := &queueHolder[string]{}
	orphans, err := controller.NewTyped("applyset-orphans", mgr, controller.TypedOptions[string]{
		Reconciler: &OrphanReconciler{
			Metadata: md, Parents: tracker, Index: index, Recorder: recorder,
			Policy: opts.OrphanPolicy, GracePeriod: opts.OrphanGracePeriod,
		},
	})
	if err != nil {
		return err
	}
	if err := orphans.Watch(source.TypedFunc[string](setIDs.start)); err != nil {
		return err
	}

	tracker.OnChange(func(ref membership.ParentRef) { parentRefs.add(ref) })
	tracker.OnDeleted(func(id string) { setIDs.add(id) })
	index.OnChange(func(ids ...string) {
		for _, id := range ids {
			parentRefs.add(tracker.ParentsOf(id)...)
		}
		setIDs.add(ids...)
	})

	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		if err := tracker.Start(ctx); err != nil {
			return fmt.Errorf("starting the parent tracker: %w", err)
		}
		if err := index.Start(ctx); err != nil {
			return fmt.Errorf("starting the membership index: %w", err)
		}
		sweep := time.NewTicker(max(opts.Resync, time.Minute))
		defer sweep.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-sweep.C:
				setIDs.add(index.SetIDs().UnsortedList()...)
			}
		}
	}))
}

// queueHolder passes requests to a controller's queue once it exists: the
// watchers may see objects before the controller starts.
type queueHolder[T comparable] struct {
	mu      sync.Mutex
	queue   workqueue.TypedRateLimitingInterface[T]
	pending []T
}

func (h *queueHolder[T]) start(_ context.Context, q workqueue.TypedRateLimitingInterface[T]) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.queue = q
	for _, item := range h.pending {
		q.Add(item)
	}
	h.pending = nil
	return nil
}

func (h *queueHolder[T]) add(items ...T) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var zero T
	for _, item := range items {
		switch {
		case item == zero:
		case h.queue == nil:
			h.pending = append(h.pending, item)
		default:
			h.queue.Add(item)
		}
	}
}

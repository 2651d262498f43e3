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
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// The parent reconciler reads the metadata of every listable type to find
// parents and members. Repairing hints (--repair-tooling) writes to other
// tools' objects: it needs the optional cluster-writer role, which the
// default install leaves out. Deleting orphans (--orphan-policy=delete) acts
// as each namespace's default ServiceAccount, with its rights, never the
// operator's.
// +kubebuilder:rbac:groups=*,resources=*,verbs=get;list;watch

// Options configure the parent and orphan reconcilers.
type Options struct {
	// RepairTooling names the toolings whose parents' hints the operator may rewrite.
	RepairTooling []string
	// OrphanPolicy is report or delete.
	OrphanPolicy OrphanPolicy
	// OrphanGracePeriod is how long an orphan is reported before it is deleted.
	OrphanGracePeriod time.Duration
	// OrphanDeleter names the ServiceAccount, in each orphan's namespace,
	// that the delete policy deletes it as; empty deletes none.
	OrphanDeleter string
	// Resync is how often every parent and set is verified again without an event.
	Resync time.Duration
	// Appliers map toolings to the field managers whose applies of the
	// part-of label the operator trusts; nil means identity.TrustedAppliers.
	Appliers membership.Appliers
	// ListTimeout is how long a resource type may take to list before
	// verification goes on without it; 0 means the membership default.
	ListTimeout time.Duration
	// Clock is the time orphans' grace periods are judged by; nil is the
	// system's clock. Tests move it.
	Clock clock.PassiveClock
}

// SetupWithManager adds the membership index, the parent reconciler and the
// orphan reconciler to mgr.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.OrphanPolicy != OrphanReport && opts.OrphanPolicy != OrphanDelete {
		return fmt.Errorf("orphan policy %q is neither %s nor %s", opts.OrphanPolicy, OrphanReport, OrphanDelete)
	}
	appliers := opts.Appliers
	if appliers == nil {
		appliers = membership.NewAppliers(identity.TrustedAppliers())
	}
	w, err := newWatchers(mgr, opts)
	if err != nil {
		return err
	}
	recorder := mgr.GetEventRecorder(identity.EventReporter)

	parents, err := controller.NewTyped("applyset-parents", mgr, controller.TypedOptions[membership.ParentRef]{
		Reconciler: &Reconciler{
			Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Parents: w.parents, Index: w.index, Recorder: recorder,
			RepairTooling: sets.New(opts.RepairTooling...), Appliers: appliers, Resync: opts.Resync,
		},
	})
	if err != nil {
		return err
	}
	if err := parents.Watch(source.TypedFunc[membership.ParentRef](w.parentRefs.start)); err != nil {
		return err
	}
	orphans, err := controller.NewTyped("applyset-orphans", mgr, controller.TypedOptions[string]{
		Reconciler: &OrphanReconciler{
			Metadata: w.metadata, Parents: w.parents, Index: w.index, Recorder: recorder,
			Policy: opts.OrphanPolicy, GracePeriod: opts.OrphanGracePeriod, Appliers: appliers.All(),
			Kept: appliers.Of(identity.ToolingName), DeleteAs: deleteAs(mgr.GetConfig(), opts.OrphanDeleter), Clock: opts.Clock,
		},
	})
	if err != nil {
		return err
	}
	if err := orphans.Watch(source.TypedFunc[string](w.setIDs.start)); err != nil {
		return err
	}
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { return w.run(ctx, opts.Resync) }))
}

// deleteAs makes the metadata clients that act as the ServiceAccount named
// account in a namespace, or nil for no account.
func deleteAs(cfg *rest.Config, account string) func(string) (metadata.Interface, string, error) {
	if account == "" {
		return nil
	}
	return func(namespace string) (metadata.Interface, string, error) {
		user := serviceaccount.MakeUsername(namespace, account)
		impersonating := rest.CopyConfig(cfg)
		impersonating.Impersonate = rest.ImpersonationConfig{UserName: user}
		c, err := metadata.NewForConfig(impersonating)
		if err != nil {
			return nil, "", fmt.Errorf("a client acting as %s: %w", user, err)
		}
		return c, "ServiceAccount " + namespace + "/" + account, nil
	}
}

// watchers are the parent tracker and the membership index, and the queues
// of the two reconcilers they feed.
type watchers struct {
	metadata   metadata.Interface
	parents    *membership.Parents
	index      *membership.Index
	parentRefs *queueHolder[membership.ParentRef]
	setIDs     *queueHolder[string]
}

func newWatchers(mgr ctrl.Manager, opts Options) (*watchers, error) {
	// Listing every type includes deprecated ones (v1 Endpoints); their
	// deprecation warnings would be noise in the operator's log.
	cfg := rest.CopyConfig(mgr.GetConfig())
	cfg.WarningHandler = rest.NoWarnings{}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("metadata client: %w", err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	log := mgr.GetLogger().WithName("parents")
	w := &watchers{
		metadata: md,
		index: membership.New(membership.Options{Discovery: disco, Metadata: md, ListTimeout: opts.ListTimeout,
			Log: log.WithName("membership")}),
		parents: membership.NewParents(membership.Options{Discovery: disco, Metadata: md, ListTimeout: opts.ListTimeout,
			Log: log.WithName("tracker")}),
		parentRefs: &queueHolder[membership.ParentRef]{},
		setIDs:     &queueHolder[string]{},
	}
	w.parents.OnChange(func(ref membership.ParentRef) { w.parentRefs.add(ref) })
	w.parents.OnDeleted(func(id string) { w.setIDs.add(id) })
	w.index.OnChange(func(ids ...string) {
		for _, id := range ids {
			w.parentRefs.add(w.parents.ParentsOf(id)...)
		}
		w.setIDs.add(ids...)
	})
	return w, nil
}

// run starts the watchers and, until ctx ends, sweeps every set ID for
// orphans every resync, and verifies every parent again whenever the types
// that cannot be listed change, since that changes what every verdict knows.
func (w *watchers) run(ctx context.Context, resync time.Duration) error {
	if err := w.parents.Start(ctx); err != nil {
		return fmt.Errorf("starting the parent tracker: %w", err)
	}
	if err := w.index.Start(ctx); err != nil {
		return fmt.Errorf("starting the membership index: %w", err)
	}
	sweep := time.NewTicker(max(resync, time.Minute))
	defer sweep.Stop()
	listing := time.NewTicker(listingCheck)
	defer listing.Stop()
	unlistable := ""
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sweep.C:
			w.setIDs.add(w.index.SetIDs().UnsortedList()...)
		case <-listing.C:
			if now := failingTypes(w.index.SyncState(), w.parents.SyncState()); now != unlistable {
				unlistable = now
				w.parentRefs.add(w.parents.All()...)
			}
		}
	}
}

// listingCheck is how often the watchers are asked which types cannot be listed.
const listingCheck = 2 * time.Second

// failingTypes names the types that cannot be listed, in a comparable form.
func failingTypes(states ...membership.SyncState) string {
	var names []string
	for _, s := range states {
		for _, f := range s.Failing {
			names = append(names, f.Resource.String())
		}
	}
	return strings.Join(names, ",")
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

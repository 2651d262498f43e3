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
	"cmp"
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/applyset-operator/applyset-operator/internal/fairqueue"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/depwatch"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/internal/kbuild"
	"github.com/applyset-operator/applyset-operator/internal/replicas"
	"github.com/applyset-operator/applyset-operator/internal/windows"
)

// A set reads and writes as its ServiceAccount, so the operator needs only to
// impersonate ServiceAccounts and to see that they exist (in the cache). Acting
// as the operator itself (--single-tenant) needs the optional cluster-writer role.
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=impersonate;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// sourceIndex indexes sets by the ConfigMaps and Secrets they read: kind/namespace/name.
const sourceIndex = ".spec.sources"

// serviceAccountIndex indexes sets by the ServiceAccount they act as: namespace/name.
const serviceAccountIndex = ".spec.serviceAccountName"

// Options configure both set reconcilers.
type Options struct {
	// ToolingVersion is written into the tooling annotation of the sets.
	ToolingVersion string
	// DefaultServiceAccount names the ServiceAccount, in its own namespace,
	// that an ApplySet naming none acts as; empty leaves such sets without one.
	DefaultServiceAccount string
	// SingleTenant lets sets that name no ServiceAccount act as the operator.
	SingleTenant bool
	// MaxInputBytes bounds what one set's sources hold, decompressed;
	// 0 means declared.DefaultLimits.Bytes.
	MaxInputBytes int64
	// MaxObjects bounds the objects one set declares; 0 means
	// declared.DefaultLimits.Objects.
	MaxObjects int
	// Concurrency is how many sets of each kind are reconciled at once; 0
	// means DefaultConcurrency.
	Concurrency int
	// ApplyConcurrency is how many requests one set has in flight at once; 0
	// means apply.DefaultConcurrency.
	ApplyConcurrency int
	// LegacyManagers are the client-side appliers whose ownership a set
	// takes over after its first apply of an object; nil means
	// apply.DefaultLegacyManagers.
	LegacyManagers []string
	// ArtifactPolicy is the hosts oci and flux sources may fetch from; nil
	// lets none fetch (--artifact-allowed-hosts).
	ArtifactPolicy *fetchpolicy.Policy
	// BuildMemory bounds the heap of one kustomize build of an oci or flux
	// source; 0 means kbuild.DefaultMaxMemory.
	BuildMemory int64
	// MaxBuilds is how many builds run at once, the others waiting their
	// namespace's turn; 0 means as many as fit in half the container's
	// memory (buildgate.DefaultSlots).
	MaxBuilds int
	// BuildCache bounds the bytes of the builds kept for sets reading the
	// same files of an artifact; 0 keeps none.
	BuildCache int64
	// ExternalArtifactHosts are the hosts, also allowed by ArtifactPolicy,
	// whose ExternalArtifacts may be fetched from any path rather than their
	// object's own only; nil frees none (--external-artifact-hosts).
	ExternalArtifactHosts *fetchpolicy.Policy
	// MinInterval is the shortest interval a set is applied again at,
	// whatever its spec.interval says; 0 means DefaultMinInterval.
	MinInterval time.Duration
	// MaxReconcileTime bounds one reconcile of a set; 0 means
	// MaxReconcileTimeFor the objects a set may declare.
	MaxReconcileTime time.Duration
	// HealthCheckBudget bounds the CEL cost of a set's health checks in one
	// reconcile; 0 means setrun.DefaultHealthCheckBudget.
	HealthCheckBudget uint64
	// PermissionTTL is how long the answer to a permission check is reused
	// by the sets acting as the same identity; 0 means
	// DefaultPermissionTTL, a negative value asks every time.
	PermissionTTL time.Duration
	// DependencyWatches bound the watches of the objects sets depend on, one
	// an object: per set, per namespace and in all; zero fields are
	// depwatch.DefaultLimits'. Sets that wait for objects beyond them look
	// again by themselves, with backoff.
	DependencyWatches depwatch.Limits
	// Clock is the time every decision is judged by (delivery windows,
	// waits, approvals, the probes' answers, chunks left by a writer that
	// stopped); nil is the system's clock. Tests move it.
	Clock clock.PassiveClock
	// InventoryNamespace holds the inventory chunks of ClusterApplySets too
	// large for their status: the operator's namespace ($POD_NAMESPACE).
	InventoryNamespace string
	// InventoryLayout bounds the members kept in a set's status and in each
	// chunk beyond; zero is inventory.DefaultLayout.
	InventoryLayout inventory.Layout
	// Replicas, when set, runs the reconcilers on every replica, each
	// reconciling the sets that name it (--replica-sharding); nil runs them
	// on the elected leader.
	Replicas *replicas.Roster
}

// clock is Clock, or the system's.
func (o Options) clock() clock.PassiveClock {
	if o.Clock == nil {
		return clock.RealClock{}
	}
	return o.Clock
}

// DefaultConcurrency lets a large set not hold up the small ones: each set
// also has up to apply.DefaultConcurrency requests in flight, which API
// Priority and Fairness queues fairly with everyone else's. Sixteen made
// 500 small sets Ready in about two thirds of the time four did (make bench
// BENCH=ScaleFluxShape); the memory of large sets is bounded apart
// (budget.go), so more workers do not hold more large sets.
const DefaultConcurrency = 16

// DefaultMinInterval is the shortest interval a set runs at: each run of a
// steady set reads every member, and an OCI or Flux set pulls and builds its
// source, so a tenant's 1s must not cost the others a worker.
const DefaultMinInterval = 30 * time.Second

// SetupWithManager adds the ApplySet and ClusterApplySet reconcilers to mgr.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	kinds := []struct {
		name    string
		newSet  func() applyv1alpha1.Set
		newList func() applyv1alpha1.SetList
		kind    string
	}{
		{"applyset", func() applyv1alpha1.Set { return &applyv1alpha1.ApplySet{} },
			func() applyv1alpha1.SetList { return &applyv1alpha1.ApplySetList{} }, "ApplySet"},
		{"clusterapplyset", func() applyv1alpha1.Set { return &applyv1alpha1.ClusterApplySet{} },
			func() applyv1alpha1.SetList { return &applyv1alpha1.ClusterApplySetList{} }, "ClusterApplySet"},
	}
	answers := &permissionAnswers{ttl: max(0, cmp.Or(opts.PermissionTTL, DefaultPermissionTTL))}
	if answers.ttl > 0 {
		if err := answers.watchRBAC(mgr); err != nil {
			return err
		}
	}
	clk := opts.clock()
	probe, chunks, err := newProbes(mgr, clk)
	if err != nil {
		return err
	}
	decisions := windows.NewCache()
	watches := newDependencyWatches(metadataClients(mgr.GetConfig()), opts.DependencyWatches)
	policies := &policyWrites{clock: clk}
	artifacts := &declared.Artifacts{Policy: opts.ArtifactPolicy, ExternalArtifactHosts: opts.ExternalArtifactHosts,
		BuildMemory: opts.BuildMemory, Builds: newBuildGate(mgr, opts), Cache: kbuild.NewCache(opts.BuildCache), Observe: observeBuild}
	for _, k := range kinds {
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), k.newSet(), sourceIndex, func(obj client.Object) []string {
			sources := obj.(applyv1alpha1.Set).GetSources()
			keys := make([]string, 0, len(sources))
			for _, s := range sources {
				if s.OCI == nil && s.Flux == nil {
					keys = append(keys, sourceKey(string(s.Kind), s.Namespace, s.Name))
				}
			}
			return keys
		}); err != nil {
			return fmt.Errorf("indexing %s sources: %w", k.kind, err)
		}
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), k.newSet(), dependsOnIndex, dependsOnKeys); err != nil {
			return fmt.Errorf("indexing %s dependencies: %w", k.kind, err)
		}
		r := &Reconciler{
			client: mgr.GetClient(), reader: mgr.GetAPIReader(), config: mgr.GetConfig(), mapper: mgr.GetRESTMapper(),
			scheme: mgr.GetScheme(), recorder: mgr.GetEventRecorder(identity.EventReporter), newSet: k.newSet, newSetList: k.newList,
			groupKind: schema.GroupKind{Group: applyv1alpha1.GroupVersion.Group, Kind: k.kind}, opts: opts, enforced: probe.check, overrides: probe.checkOverride,
			authority: probe.checkAuthority, chunksGuarded: chunks.check,
			limits: declared.Limits{Bytes: cmp.Or(opts.MaxInputBytes, declared.DefaultLimits.Bytes),
				Objects: cmp.Or(opts.MaxObjects, declared.DefaultLimits.Objects)},
			artifacts: artifacts, permissions: answers, watches: watches, clock: clk, decisions: decisions,
			policyWrites: policies,
		}
		r.inputs = newInputBudget(r.limits)
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), k.newSet(), serviceAccountIndex, r.actingAs); err != nil {
			return fmt.Errorf("indexing %s by ServiceAccount: %w", k.kind, err)
		}
		r.shareAcrossReplicas(mgr, opts.Replicas)
		b := ctrl.NewControllerManagedBy(mgr).
			Named(k.name).
			WithOptions(controller.Options{MaxConcurrentReconciles: cmp.Or(opts.Concurrency, DefaultConcurrency), NewQueue: fairQueue,
				NeedLeaderElection: r.needsLeader()}).
			For(k.newSet(), builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, othersAnnotationsChanged), r.ownedHere())).
			WatchesMetadata(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.setsReading("ConfigMap"))).
			WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.setsReading("Secret"))).
			WatchesMetadata(&corev1.ServiceAccount{}, handler.EnqueueRequestsFromMapFunc(r.setsActingAs)).
			// A set that becomes Ready (or stops being) wakes the sets that depend on it.
			Watches(&applyv1alpha1.ApplySet{}, handler.EnqueueRequestsFromMapFunc(r.dependents), builder.WithPredicates(readinessChanged)).
			Watches(&applyv1alpha1.ClusterApplySet{}, handler.EnqueueRequestsFromMapFunc(r.dependents), builder.WithPredicates(readinessChanged)).
			// An object a set waits for that changes wakes it (depwatch.go).
			WatchesRawSource(watches.source(applyv1alpha1.SetKind(k.kind)))
		err := r.resyncOnMembership(r.wakeOnPolicies(b)).Complete(r)
		if err != nil {
			return fmt.Errorf("setting up the %s reconciler: %w", k.kind, err)
		}
	}
	return nil
}

// newBuildGate hands out the slots the builds of both kinds' sets run in.
// othersAnnotationsChanged passes updates that change the set's annotations
// other than the ApplySet contract's, which the reconciler writes itself: a
// person's annotation asks for a reconcile, the set's own hints do not.
var othersAnnotationsChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		return !maps.Equal(othersAnnotations(e.ObjectOld), othersAnnotations(e.ObjectNew))
	},
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

func othersAnnotations(obj client.Object) map[string]string {
	out := map[string]string{}
	for k, v := range obj.GetAnnotations() {
		if !strings.HasPrefix(k, applysetContractPrefix) {
			out[k] = v
		}
	}
	return out
}

// applysetContractPrefix starts the ApplySet contract's label and annotation keys.
const applysetContractPrefix = "applyset.kubernetes.io/"

func sourceKey(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// setsReading maps a changed ConfigMap or Secret to the sets that read it.
func (r *Reconciler) setsReading(kind string) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		return requestsFor(r.listSets(ctx, client.MatchingFields{sourceIndex: sourceKey(kind, obj.GetNamespace(), obj.GetName())}))
	}
}

// setsActingAs maps a ServiceAccount that appeared (or changed) to the sets
// that act as it, so that a set waiting for its account goes on at once.
// The index keeps this to the sets of that account: sets that create
// ServiceAccounts would otherwise have every new one look at every set.
func (r *Reconciler) setsActingAs(ctx context.Context, sa client.Object) []reconcile.Request {
	return requestsFor(r.listSets(ctx, client.MatchingFields{serviceAccountIndex: client.ObjectKeyFromObject(sa).String()}))
}

// actingAs is the index of a set by the ServiceAccount it acts as.
func (r *Reconciler) actingAs(obj client.Object) []string {
	act, err := r.actorOf(obj.(applyv1alpha1.Set))
	if err != nil || act.serviceAccount == nil {
		return nil
	}
	return []string{act.serviceAccount.String()}
}

// listSets lists the reconciled kind's sets from the cache, as the cache
// holds them: the callers only read their names.
func (r *Reconciler) listSets(ctx context.Context, opts ...client.ListOption) []applyv1alpha1.Set {
	list := r.newSetList()
	if err := r.client.List(ctx, list, append(opts, client.UnsafeDisableDeepCopy)...); err != nil {
		log.FromContext(ctx).Error(err, "Listing sets to reconcile after a change", "kind", r.groupKind.Kind)
		return nil
	}
	return list.GetSets()
}

func requestsFor(sets []applyv1alpha1.Set) []reconcile.Request {
	requests := make([]reconcile.Request, 0, len(sets))
	for _, set := range sets {
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(set)})
	}
	return requests
}

// fairQueue is client-go's rate-limited work queue with a store that lets
// namespaces take turns (internal/fairqueue): a tenant who creates a
// thousand sets delays another tenant's set by one turn, not by a thousand
// reconciles. ClusterApplySets, which have no namespace, share one line.
func fairQueue(name string, limiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	store := fairqueue.New(func(req reconcile.Request) string { return req.Namespace })
	queue := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[reconcile.Request]{Name: name, Queue: store})
	delaying := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[reconcile.Request]{Name: name, Queue: queue})
	return workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
		workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name, DelayingQueue: delaying})
}

// newProbes find out whether the admission policies the operator relies on
// are in force: the approval, authority and inventory policies.
func newProbes(mgr ctrl.Manager, clk clock.PassiveClock) (*setPolicyProbe, *inventoryProbe, error) {
	opts := client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()}
	approvals, err := newSetPolicyProbe(mgr.GetConfig(), opts, clk)
	if err != nil {
		return nil, nil, err
	}
	chunks, err := newInventoryProbe(mgr.GetConfig(), mgr.GetClient(), opts, clk)
	return approvals, chunks, err
}

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
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/depwatch"
	"github.com/applyset-operator/applyset-operator/internal/metrics"
)

// dependencyWatches wake the sets that wait for objects (spec.dependsOn
// entries with apiVersion) when those objects change: the watches of
// internal/depwatch, one per object, made as the sets' identities, feeding
// the work queues of both set reconcilers.
type dependencyWatches struct {
	*depwatch.Watches[setKey]

	mu     sync.Mutex
	queues map[applyv1alpha1.SetKind]workqueue.TypedRateLimitingInterface[reconcile.Request]
}

func newDependencyWatches(clientFor depwatch.ClientFor, limits depwatch.Limits) *dependencyWatches {
	w := &dependencyWatches{queues: map[applyv1alpha1.SetKind]workqueue.TypedRateLimitingInterface[reconcile.Request]{}}
	w.Watches = depwatch.New(clientFor, w.wake, limits)
	return w
}

// dependencyWatchCount is the number of watches running.
var dependencyWatchCount = prometheus.NewGauge(prometheus.GaugeOpts{
	Name: "applyset_operator_dependency_watches",
	Help: "Watches of the objects sets depend on (spec.dependsOn with apiVersion) running, one an object.",
})

func init() {
	metrics.MustRegister(dependencyWatchCount)
}

// Want is depwatch's, keeping the count of watches.
func (w *dependencyWatches) Want(ctx context.Context, set setKey, namespace string, targets []depwatch.Target, waiting bool) map[depwatch.Target]string {
	unwatched := w.Watches.Want(ctx, set, namespace, targets, waiting)
	dependencyWatchCount.Set(float64(w.Len()))
	return unwatched
}

// Release is depwatch's, keeping the count of watches.
func (w *dependencyWatches) Release(set setKey) {
	w.Watches.Release(set)
	dependencyWatchCount.Set(float64(w.Len()))
}

// source hands the watches the work queue of the sets of kind.
func (w *dependencyWatches) source(kind applyv1alpha1.SetKind) source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		w.mu.Lock()
		w.queues[kind] = q
		w.mu.Unlock()
		w.Start(ctx)
		return nil
	})
}

func (w *dependencyWatches) wake(set setKey) {
	w.mu.Lock()
	q := w.queues[set.kind]
	w.mu.Unlock()
	if q != nil {
		q.Add(reconcile.Request{NamespacedName: set.NamespacedName})
	}
}

// metadataClients are the metadata clients the watches act through: as
// each set's identity, impersonated, or as the operator for "". One client,
// so one connection, serves every watch of an identity.
func metadataClients(cfg *rest.Config) depwatch.ClientFor {
	var clients sync.Map
	return func(user string) (metadata.Interface, error) {
		if c, ok := clients.Load(user); ok {
			return c.(metadata.Interface), nil
		}
		c, err := metadata.NewForConfig(impersonated(cfg, user))
		if err != nil {
			return nil, fmt.Errorf("a metadata client acting as %s: %w", user, err)
		}
		c2, _ := clients.LoadOrStore(user, c)
		return c2.(metadata.Interface), nil
	}
}

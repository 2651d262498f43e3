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

package replicas

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/applyset-operator/applyset-operator/internal/claims"
	"github.com/applyset-operator/applyset-operator/internal/requeue"
)

const (
	// OwnerAnnotation names, on a set, the replica and term that reconcile it.
	OwnerAnnotation = "apply.applyset.dev/owner"
	// FieldManager writes OwnerAnnotation.
	FieldManager = "applyset-operator-replicas"
)

// errNotOwner stops work on a set that no longer names this replica's term.
var errNotOwner = errors.New("this replica no longer owns the set")

// Gate admits a reconcile of one kind of set only on the replica the set
// names, and moves sets between replicas.
type Gate struct {
	Roster *Roster
	// Reader reads sets live; Writer writes their owner.
	Reader client.Reader
	Writer client.Client
	GVK    schema.GroupVersionKind
}

// Admit decides at the start of a reconcile of key. When the reconcile goes
// on, it returns a context that ends with this replica's term and done to
// call at its end; otherwise the result to return.
func (g *Gate) Admit(ctx context.Context, key types.NamespacedName) (context.Context, func(), *reconcile.Result, error) {
	for range 2 { // once more after fencing a lapsed term
		set, err := g.read(ctx, key)
		if apierrors.IsNotFound(err) {
			return ctx, nil, &reconcile.Result{}, nil
		}
		if err != nil {
			return ctx, nil, nil, err
		}
		named, _ := claims.ParseHolder(set.GetAnnotations()[OwnerAnnotation]) // unreadable names nobody
		d := claims.Decide(key.String(), named, g.Roster.View())
		logger := log.FromContext(ctx)
		switch d.Action {
		case claims.Act:
			return g.enter(ctx, named)
		case claims.Claim, claims.TakeOver:
			work, term, done, ok := g.Roster.Enter(ctx)
			if !ok {
				return ctx, nil, &reconcile.Result{}, nil
			}
			if err := g.write(work, set, term); err != nil {
				done()
				return g.retry(ctx, err)
			}
			logger.Info("Replica takes the set", "replica", term.String(), "from", named.String(), "reason", d.Action.String())
			return work, done, nil, nil
		case claims.HandOver:
			if err := g.write(ctx, set, d.To); err != nil {
				return g.retry(ctx, err)
			}
			logger.Info("Replica hands the set over", "from", named.String(), "to", d.To.String())
			return ctx, nil, &reconcile.Result{}, nil
		case claims.Fence:
			if err := g.Roster.Fence(ctx, d.Fenced); err != nil {
				return g.retry(ctx, err)
			}
			logger.Info("Replica fenced a lapsed replica's term", "fenced", named.String())
			continue
		default:
			if d.After > 0 {
				return ctx, nil, &reconcile.Result{RequeueAfter: requeue.Jitter(d.After)}, nil
			}
			return ctx, nil, &reconcile.Result{}, nil
		}
	}
	return ctx, nil, &reconcile.Result{RequeueAfter: requeue.Jitter(g.Roster.Timing.RetryPeriod)}, nil
}

func (g *Gate) enter(ctx context.Context, named claims.Holder) (context.Context, func(), *reconcile.Result, error) {
	work, term, done, ok := g.Roster.Enter(ctx)
	if !ok || term != named {
		if ok {
			done()
		}
		return ctx, nil, &reconcile.Result{}, nil
	}
	return work, done, nil, nil
}

// retry looks at the set again soon after a write lost a race.
func (g *Gate) retry(ctx context.Context, err error) (context.Context, func(), *reconcile.Result, error) {
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) || errors.Is(err, errNotFenceable) {
		return ctx, nil, &reconcile.Result{RequeueAfter: requeue.Jitter(g.Roster.Timing.RetryPeriod)}, nil
	}
	return ctx, nil, nil, err
}

// Check says, with nil, that the set still names this replica's term and
// the term holds: asked before each group of deletes and the status write.
func (g *Gate) Check(ctx context.Context, key types.NamespacedName) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	set, err := g.read(ctx, key)
	if err != nil {
		return fmt.Errorf("checking the set's owner: %w", err)
	}
	named, _ := claims.ParseHolder(set.GetAnnotations()[OwnerAnnotation])
	if !g.Roster.Holds(named) {
		return fmt.Errorf("%w: it names %q", errNotOwner, named.String())
	}
	return nil
}

func (g *Gate) read(ctx context.Context, key types.NamespacedName) (*metav1.PartialObjectMetadata, error) {
	set := &metav1.PartialObjectMetadata{}
	set.SetGroupVersionKind(g.GVK)
	return set, g.Reader.Get(ctx, key, set)
}

// write names owner on the set, on condition that the set is still the
// version read: every change of owner is a compare-and-swap.
func (g *Gate) write(ctx context.Context, set *metav1.PartialObjectMetadata, owner claims.Holder) error {
	patch := &unstructured.Unstructured{}
	patch.SetGroupVersionKind(g.GVK)
	patch.SetNamespace(set.Namespace)
	patch.SetName(set.Name)
	patch.SetResourceVersion(set.ResourceVersion)
	patch.SetAnnotations(map[string]string{OwnerAnnotation: owner.String()})
	return g.Writer.Apply(ctx, client.ApplyConfigurationFromUnstructured(patch), client.FieldOwner(FieldManager), client.ForceOwnership)
}

// Mine passes the events of sets this replica may have to act on: those
// naming it, naming nobody, or hashing to it.
func (g *Gate) Mine() predicate.Predicate {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		v := g.Roster.View()
		if v.Self.IsZero() {
			return false // a new term queues every set again
		}
		named, _ := claims.ParseHolder(obj.GetAnnotations()[OwnerAnnotation])
		return named.IsZero() || named.Replica == v.Self.Replica ||
			claims.Target(client.ObjectKeyFromObject(obj).String(), v.Live()) == v.Self.Replica
	})
}

// Resync is a source that queues every set list returns whenever the live
// replicas or this replica's term change.
func (g *Gate) Resync(list func(context.Context) []reconcile.Request) source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		g.Roster.OnChange(func() {
			for _, req := range list(ctx) {
				q.Add(req)
			}
		})
		return nil
	})
}

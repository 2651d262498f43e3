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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/replicas"
)

// With --replica-sharding the set reconcilers run on every replica, each
// reconciling the sets that name it (internal/replicas): the hooks below
// are no-ops without it.

// shareAcrossReplicas makes r reconcile only the sets that name this replica.
func (r *Reconciler) shareAcrossReplicas(mgr ctrl.Manager, roster *replicas.Roster) {
	if roster == nil {
		return
	}
	r.gate = &replicas.Gate{Roster: roster, Reader: mgr.GetAPIReader(), Writer: mgr.GetClient(),
		GVK: applyv1alpha1.GroupVersion.WithKind(r.groupKind.Kind)}
}

// needsLeader is false when every replica reconciles its own sets.
func (r *Reconciler) needsLeader() *bool {
	if r.gate == nil {
		return nil // the manager's default
	}
	return new(bool)
}

// ownedHere filters out the events of sets another replica reconciles.
func (r *Reconciler) ownedHere() predicate.Predicate {
	if r.gate == nil {
		return predicate.Funcs{}
	}
	return r.gate.Mine()
}

// resyncOnMembership queues every set again when the live replicas change.
func (r *Reconciler) resyncOnMembership(b *builder.Builder) *builder.Builder {
	if r.gate == nil {
		return b
	}
	return b.WatchesRawSource(r.gate.Resync(func(ctx context.Context) []reconcile.Request {
		return requestsFor(r.listSets(ctx))
	}))
}

// admit lets a reconcile go on only on the replica the set names; stop,
// when not nil, is what Reconcile returns instead.
func (r *Reconciler) admit(ctx context.Context, key types.NamespacedName) (_ context.Context, done func(), stop *reconcile.Result, _ error) {
	if r.gate == nil {
		return ctx, func() {}, nil, nil
	}
	ctx, done, stop, err := r.gate.Admit(ctx, key)
	if done == nil {
		done = func() {}
	}
	return ctx, done, stop, err
}

// stillOwner is asked before the status write and each group of deletes.
func (r *Reconciler) stillOwner(ctx context.Context, set client.Object) error {
	if r.gate == nil {
		return nil
	}
	if err := r.gate.Check(ctx, client.ObjectKeyFromObject(set)); !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// beforeDelete stops a group of deletes while the operator is being
// uninstalled, or when the set moved to another replica.
func (r *Reconciler) beforeDelete(set client.Object) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := r.stopWhenUninstalling(ctx); err != nil {
			return err
		}
		return r.stillOwner(ctx, set)
	}
}

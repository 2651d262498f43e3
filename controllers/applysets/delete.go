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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// reconcileDelete prunes every member (Delete) or disbands the set (Orphan),
// then lets the set go.
func (r *Reconciler) reconcileDelete(ctx context.Context, set applyv1alpha1.Set) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(set, Finalizer) {
		return reconcile.Result{}, nil
	}
	parent := applyset.ParseParent(r.parentKey(set), set.GetLabels(), set.GetAnnotations())
	if parent.Trusted() && (parent.Tooling.Name == identity.ToolingName || parent.Tooling.Name == "") {
		if err := r.releaseMembers(ctx, set, parent); err != nil {
			setCondition(set.GetSetStatus(), set.GetGeneration(), applyv1alpha1.ConditionReady, metav1.ConditionFalse,
				ReasonDeletionBlocked, "Releasing the members before deletion failed: "+err.Error())
			return reconcile.Result{}, err
		}
	}
	base := set.DeepCopyObject().(client.Object)
	controllerutil.RemoveFinalizer(set, Finalizer)
	if err := r.Client.Patch(ctx, set, client.MergeFrom(base)); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	return reconcile.Result{}, nil
}

// releaseMembers deletes every member, or with deletionPolicy Orphan removes
// their part-of label, leaving them in place.
func (r *Reconciler) releaseMembers(ctx context.Context, set applyv1alpha1.Set, parent applyset.Parent) error {
	engine, err := r.engine(set)
	if err != nil {
		return err
	}
	spec := set.GetCommonSpec()
	if spec.DeletionPolicy == applyv1alpha1.DeletionPolicyOrphan {
		inputs, err := gatherInputs(ctx, r.Reader, set)
		if err != nil {
			return fmt.Errorf("reading the declared objects to disband them: %w", err)
		}
		objects, err := apply.Check(inputs, apply.Target{Scope: parent.Scope, DefaultNamespace: set.GetNamespace(), Mapper: r.Mapper})
		if err != nil {
			return fmt.Errorf("reading the declared objects to disband them: %w", err)
		}
		_, err = engine.Apply(ctx, objects, apply.ApplyOptions{SetID: parent.ID, Disband: true})
		return err
	}
	_, err = engine.Prune(ctx, apply.PruneOptions{
		SetID: parent.ID, ParentUID: string(set.GetUID()), Scope: parent.Scope, Kinds: currentKinds(parent),
		Keep: sets.New[apply.ObjectRef](),
	})
	return err
}

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
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// +kubebuilder:rbac:groups=apply.applyset.dev,resources=applysetinventories,verbs=list;create;patch;delete;record
// +kubebuilder:rbac:groups="",resources=users,verbs=impersonate,resourceNames=system:applyset-operator:inventory-probe

// ReasonInventoryLost is the reason of the Warning Event of a set whose
// inventory lost chunks: the members they recorded are left alone.
const ReasonInventoryLost = "InventoryLost"

// InventoryProbeUser is the identity the inventory probe acts as:
// config/policy lets it create chunks and nothing else.
const InventoryProbeUser = "system:applyset-operator:inventory-probe"

// inventoryPolicy is the name of the inventory policy
// (config/policy/inventory.yaml), whatever prefix it was installed with.
const inventoryPolicy = "applyset-inventory"

// loadInventory reads the set's members, from status or the chunks it
// names, and the chunks of the set status does not name. Lost chunks are
// named, to be written again, with lostErr saying so; the members of the
// others are returned: the lost ones are unproven, so left alone.
func (r *Reconciler) loadInventory(ctx context.Context, set applyv1alpha1.Set, status *applyv1alpha1.ApplySetStatus) (
	_ *inventory.Inventory, lost []string, strays []inventory.Stray, lostErr, _ error) {
	inv, strays, err := inventory.LoadWithStrays(ctx, r.reader, status, set.GetUID())
	var lostChunks *inventory.LostChunksError
	if errors.As(err, &lostChunks) {
		return &inv, lostChunks.Names, strays, lostChunks, nil
	}
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return &inv, nil, strays, nil, nil
}

// toldLost tells that the set's inventory lost chunks: a Warning Event.
func (r *Reconciler) toldLost(ctx context.Context, set applyv1alpha1.Set, lost error) {
	log.FromContext(ctx).Info("The set's inventory lost chunks", "error", lost.Error())
	r.event(ctx, set, "Warning", ReasonInventoryLost, "Apply", "%s", text.Truncate(lost.Error(), maxEventMessage))
}

// inventoryOwner is the set as the owner of its chunks, and where they live.
func (r *Reconciler) inventoryOwner(set applyv1alpha1.Set) (inventory.Owner, error) {
	ns := set.GetNamespace()
	if ns == "" {
		ns = r.opts.InventoryNamespace
	}
	if ns == "" {
		return inventory.Owner{}, fmt.Errorf("a %s of more than %d members keeps its inventory in the operator's namespace, "+
			"which the operator was not told ($POD_NAMESPACE or --inventory-namespace)", r.groupKind.Kind, r.layout().Inline)
	}
	return inventory.Owner{Kind: r.groupKind.Kind, Name: set.GetName(), UID: set.GetUID(), Namespace: ns}, nil
}

func (r *Reconciler) layout() inventory.Layout {
	if r.opts.InventoryLayout == (inventory.Layout{}) {
		return inventory.DefaultLayout
	}
	return r.opts.InventoryLayout
}

// placeInventory decides where the members a run recorded are kept.
func (r *Reconciler) placeInventory(set applyv1alpha1.Set, o outcome) outcome {
	if o.inventory == nil {
		return o
	}
	placed, reason, err := r.place(set, *o.inventory)
	if err != nil {
		return failure(o, reason, reason == applyv1alpha1.ReasonBudgetExceeded, err)
	}
	placed.Lost = o.lostChunks
	o.placed = &placed
	return o
}

// place decides where the members inv are kept; on error, reason is the
// set's condition reason.
func (r *Reconciler) place(set applyv1alpha1.Set, inv inventory.Inventory) (inventory.Placed, string, error) {
	owner, err := r.inventoryOwner(set)
	if err != nil && inv.Len() > r.layout().Inline {
		return inventory.Placed{}, applyv1alpha1.ReasonInventoryUnprotected, err
	}
	placed, err := r.layout().Place(inv, owner)
	if err != nil {
		return inventory.Placed{}, applyv1alpha1.ReasonBudgetExceeded, err
	}
	return placed, "", nil
}

// deleteChunks deletes every chunk of a set about to go.
func (r *Reconciler) deleteChunks(ctx context.Context, set applyv1alpha1.Set) error {
	inv := set.GetSetStatus().Inventory
	if inv == nil {
		return nil
	}
	if err := inventory.DeleteAll(ctx, r.reader, r.client, inv.Namespace, set.GetUID()); err != nil {
		return fmt.Errorf("deleting the chunks of the set's inventory: %w", err)
	}
	return nil
}

// Chunked is nil when the set's chunks have a namespace and the admission
// policy that lets only the operator write them is in force there.
func (w *setWrites) Chunked(ctx context.Context) error {
	owner, err := w.rec.r.inventoryOwner(w.rec.set)
	if err != nil {
		return err
	}
	return w.rec.r.chunksGuarded(ctx, owner.Namespace)
}

// inventoryProbe finds out, as the approval probe does, whether only the
// operator can write chunks: it creates one in a dry run as
// InventoryProbeUser, which RBAC lets create them; the policy refuses it
// where it is in force. Then it creates one in a dry run as the operator,
// which must succeed: a set whose chunks could not be written would label
// members it never records.
type inventoryProbe struct {
	client   client.Client
	operator client.Client
	// inForce is when the policy was last found in force, by namespace.
	inForce inForce
}

// newInventoryProbe acts as InventoryProbeUser, impersonated from cfg.
func newInventoryProbe(cfg *rest.Config, operator client.Client, opts client.Options, clk clock.PassiveClock) (*inventoryProbe, error) {
	c, _, err := impersonating(cfg, InventoryProbeUser, opts)
	if err != nil {
		return nil, err
	}
	return &inventoryProbe{client: c, operator: operator, inForce: inForce{clock: clk}}, nil
}

// check returns nil when the inventory policy is in force in namespace.
func (p *inventoryProbe) check(ctx context.Context, namespace string) error {
	if p.inForce.fresh(namespace) {
		return nil
	}
	probe := &applyv1alpha1.ApplySetInventory{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, GenerateName: "inventory-probe-"},
		Spec:       applyv1alpha1.ApplySetInventorySpec{Set: applyv1alpha1.InventorySet{Kind: "ApplySet", Name: "probe", UID: "probe"}},
	}
	err := p.client.Create(ctx, probe.DeepCopy(), client.DryRunAll)
	switch {
	case err == nil:
		return errors.New("the admission policy applyset-inventory is not in force, so anyone who may write in the namespace " +
			"could forge the inventory of a set too large for its status; install config/policy (applyset-inventory) of this release")
	case refusedBy(err, inventoryPolicy):
		if err := p.operator.Create(ctx, probe, client.DryRunAll); err != nil {
			return fmt.Errorf("the operator may not write the inventory's chunks in namespace %s, so it would label members "+
				"it could not record (a dry-run create): %w", namespace, err)
		}
		p.inForce.found(namespace)
		return nil
	}
	return fmt.Errorf("checking that only the operator may write the inventory's chunks (a dry-run create): %w", err)
}

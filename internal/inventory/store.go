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

package inventory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
)

// LostChunksError says which chunks status names were not found, or belong
// to another set: the members they recorded are no longer proven, so they
// are left alone (never pruned or released) until an apply records them
// again.
type LostChunksError struct {
	Names []string
}

func (e *LostChunksError) Error() string {
	return fmt.Sprintf("the set's inventory lost %d chunk(s) (%s): the members recorded there are no longer proven "+
		"and are left alone; those still declared are recorded again as they are applied", len(e.Names), strings.Join(e.Names, ", "))
}

// Load reads the inventory status records for the set of uid: inline, or
// from the chunks it names, with one list. A LostChunksError comes with
// the inventory of the chunks found.
func Load(ctx context.Context, r client.Reader, status *applyv1alpha1.ApplySetStatus, uid types.UID) (Inventory, error) {
	if status == nil {
		return FromStatus(nil), nil
	}
	if status.Inventory == nil {
		return FromStatus(status.Members), nil
	}
	list := &applyv1alpha1.ApplySetInventoryList{}
	if err := r.List(ctx, list, client.InNamespace(status.Inventory.Namespace),
		client.MatchingLabels{applyv1alpha1.InventoryOfLabel: string(uid)}); err != nil {
		return Inventory{}, fmt.Errorf("reading the set's inventory in namespace %s: %w", status.Inventory.Namespace, err)
	}
	found := make(map[string]*applyv1alpha1.ApplySetInventory, len(list.Items))
	for i := range list.Items {
		found[list.Items[i].Name] = &list.Items[i]
	}
	var members []applyv1alpha1.Member
	var lost []string
	for _, c := range status.Inventory.Chunks {
		chunk := found[c.Name]
		if chunk == nil || chunk.Spec.Set.UID != string(uid) {
			lost = append(lost, c.Name)
			continue
		}
		members = append(members, chunk.Spec.Members...)
	}
	if lost != nil {
		return FromStatus(members), &LostChunksError{Names: lost}
	}
	return FromStatus(members), nil
}

// Save writes, with server-side apply, the chunks of p that before (the
// status stored) does not already name with the same digest: a set whose
// members did not change writes none. owner becomes the chunks' owner, so
// that they go with the set. Save comes before the status that names them.
func Save(ctx context.Context, c client.Client, before applyv1alpha1.InventoryStatus, p Placed, owner metav1.OwnerReference) error {
	stored := map[string]string{}
	for _, ch := range before.Chunks {
		stored[ch.Name] = ch.Digest
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(saveConcurrency)
	for i, chunk := range p.Chunks {
		if d, ok := stored[chunk.Name]; ok && d == p.Status.Chunks[i].Digest && !slices.Contains(p.Lost, chunk.Name) {
			continue
		}
		g.Go(func() error {
			obj := chunk.DeepCopy()
			obj.OwnerReferences = []metav1.OwnerReference{owner}
			if err := c.Patch(gctx, obj, client.Apply, client.FieldOwner(identity.InventoryFieldManager), client.ForceOwnership); err != nil { //nolint:staticcheck // typed objects apply through Patch
				return fmt.Errorf("writing chunk %s of the set's inventory: %w", chunk.Name, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// saveConcurrency bounds the chunk writes in flight: a set of 100,000
// members writes 64 of about 260 KiB on its first apply.
const saveConcurrency = 8

// Collect deletes the chunks before named that p does not: those of an
// older layout, after the status that names p's is written.
func Collect(ctx context.Context, c client.Client, before applyv1alpha1.InventoryStatus, p Placed) error {
	var errs []error
	for _, ch := range before.Chunks {
		if p.Status != nil && slices.ContainsFunc(p.Status.Chunks, func(n applyv1alpha1.InventoryChunk) bool { return n.Name == ch.Name }) {
			continue
		}
		obj := &applyv1alpha1.ApplySetInventory{ObjectMeta: metav1.ObjectMeta{Namespace: before.Namespace, Name: ch.Name}}
		if err := c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("deleting chunk %s of the set's old inventory: %w", ch.Name, err))
		}
	}
	return errors.Join(errs...)
}

// DeleteAll deletes every chunk of the set of uid in namespace, those of
// layouts interrupted before status named them included: the set is gone.
// r lists them, uncached: a cache would watch every chunk.
func DeleteAll(ctx context.Context, r client.Reader, c client.Writer, namespace string, uid types.UID) error {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(applyv1alpha1.GroupVersion.WithKind("ApplySetInventoryList"))
	if err := r.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{applyv1alpha1.InventoryOfLabel: string(uid)}); err != nil {
		return err
	}
	var errs []error
	for i := range list.Items {
		if err := c.Delete(ctx, &list.Items[i]); client.IgnoreNotFound(err) != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

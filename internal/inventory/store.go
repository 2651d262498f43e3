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
	"time"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
)

// LostChunksError says which chunks status names were not found, belong to
// another set, or hold other members than the digest status records for
// them: the members they recorded are no longer proven, so they are left
// alone (never pruned or released) until an apply records them again.
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
	inv, _, err := LoadWithStrays(ctx, r, status, uid)
	return inv, err
}

// Stray is a chunk of the set that status does not name: saved for a status
// that was never written (its writer stopped, or lost a race), or named by
// one since replaced.
type Stray struct {
	Name    string
	Created time.Time
}

// LoadWithStrays is Load, and the chunks of the set in the namespace
// status names that it does not name.
func LoadWithStrays(ctx context.Context, r client.Reader, status *applyv1alpha1.ApplySetStatus, uid types.UID) (Inventory, []Stray, error) {
	if status == nil {
		return FromStatus(nil), nil, nil
	}
	if status.Inventory == nil {
		return FromStatus(status.Members), nil, nil
	}
	list := &applyv1alpha1.ApplySetInventoryList{}
	if err := r.List(ctx, list, client.InNamespace(status.Inventory.Namespace),
		client.MatchingLabels{applyv1alpha1.InventoryOfLabel: string(uid)}); err != nil {
		return Inventory{}, nil, fmt.Errorf("reading the set's inventory in namespace %s: %w", status.Inventory.Namespace, err)
	}
	found := make(map[string]*applyv1alpha1.ApplySetInventory, len(list.Items))
	for i := range list.Items {
		found[list.Items[i].Name] = &list.Items[i]
	}
	var members []applyv1alpha1.Member
	var lost []string
	for _, c := range status.Inventory.Chunks {
		chunk := found[c.Name]
		delete(found, c.Name)
		if chunk == nil || chunk.Spec.Set.UID != string(uid) || digest(chunk.Spec.Members) != c.Digest {
			lost = append(lost, c.Name)
			continue
		}
		members = append(members, chunk.Spec.Members...)
	}
	strays := make([]Stray, 0, len(found))
	for name, chunk := range found {
		strays = append(strays, Stray{Name: name, Created: chunk.CreationTimestamp.Time})
	}
	if lost != nil {
		return FromStatus(members), strays, &LostChunksError{Names: lost}
	}
	return FromStatus(members), strays, nil
}

// Save writes, with server-side apply, the chunks of p that before (the
// status stored) does not already name with the same digest: a set whose
// members did not change writes none. owner becomes the chunks' owner, so
// that they go with the set. Save comes before the status that names them,
// and writes only chunks no stored status names: p is Named, so a live
// chunk is never changed, and chunks saved for a status that is never
// written only wait to be collected. It returns the names of the chunks it
// wrote, or tried to.
func Save(ctx context.Context, c client.Client, before applyv1alpha1.InventoryStatus, p Placed, owner metav1.OwnerReference) ([]string, error) {
	stored := map[string]string{}
	for _, ch := range before.Chunks {
		stored[ch.Name] = ch.Digest
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(saveConcurrency)
	var written []string
	for i, chunk := range p.Chunks {
		if d, ok := stored[chunk.Name]; ok && d == p.Status.Chunks[i].Digest && !slices.Contains(p.Lost, chunk.Name) {
			continue
		}
		written = append(written, chunk.Name)
		g.Go(func() error {
			obj := chunk.DeepCopy()
			obj.OwnerReferences = []metav1.OwnerReference{owner}
			if err := c.Patch(gctx, obj, client.Apply, client.FieldOwner(identity.InventoryFieldManager), client.ForceOwnership); err != nil { //nolint:staticcheck // typed objects apply through Patch
				return fmt.Errorf("writing chunk %s of the set's inventory: %w", chunk.Name, err)
			}
			return nil
		})
	}
	return written, g.Wait()
}

// saveConcurrency bounds the chunk writes in flight: a set of 100,000
// members writes 64 of about 260 KiB on its first apply.
const saveConcurrency = 8

// Collect deletes the chunks in namespace that before named, or that were
// saved for a status never written (unnamed), and that committed, the
// status written, does not name: after the commit, nothing names them.
func Collect(ctx context.Context, c client.Client, namespace string, before []applyv1alpha1.InventoryChunk, unnamed []string,
	committed *applyv1alpha1.InventoryStatus) error {
	names := make([]string, 0, len(before)+len(unnamed))
	for _, ch := range before {
		names = append(names, ch.Name)
	}
	var errs []error
	for _, name := range slices.Compact(slices.Sorted(slices.Values(append(names, unnamed...)))) {
		if committed != nil && committed.Namespace == namespace &&
			slices.ContainsFunc(committed.Chunks, func(n applyv1alpha1.InventoryChunk) bool { return n.Name == name }) {
			continue
		}
		obj := &applyv1alpha1.ApplySetInventory{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
		if err := c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("deleting chunk %s of the set's old inventory: %w", name, err))
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

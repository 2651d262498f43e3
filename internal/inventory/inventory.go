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

// Package inventory keeps the record that proves which objects a set applied:
// the UIDs of its members, in the set's status, which only the operator
// writes. Prune and deletion act on an object found by the set's label only
// when its UID is recorded here; anything else carrying the label is foreign.
//
// A set of more than Layout.Inline members keeps them in chunks,
// ApplySetInventory objects only the operator may write, which status
// names (chunks.go places them). The inventory and its layout are pure;
// store.go alone makes requests: it reads and writes the chunks.
package inventory

import (
	"cmp"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// CascadeAnnotation set to "allow" on the declaration of a
// CustomResourceDefinition or Namespace, lets its deletion take what else
// lives in it. Only the declaration counts, recorded when the set applies
// it: the live object's annotations are anyone's to edit.
const CascadeAnnotation = apply.CascadeAnnotation

// Entry is one member the set applied.
type Entry struct {
	Ref apply.ObjectRef
	// UID is empty for members recorded before UIDs were kept.
	UID types.UID
	// Cascade records that the declaration allowed a cascading delete.
	Cascade bool
}

// Inventory is the set's members.
type Inventory struct {
	entries map[apply.ObjectRef]Entry
}

// FromStatus reads the inventory a set's status holds.
func FromStatus(members []applyv1alpha1.Member) Inventory {
	inv := Inventory{entries: make(map[apply.ObjectRef]Entry, len(members))}
	for _, m := range members {
		ref := apply.ObjectRef{GroupKind: schema.GroupKind{Group: m.Group, Kind: m.Kind}, Namespace: m.Namespace, Name: m.Name}
		inv.entries[ref] = Entry{Ref: ref, UID: types.UID(m.UID), Cascade: ptr.Deref(m.Cascade, false)}
	}
	return inv
}

// Status writes the inventory for a set's status, sorted.
func (inv Inventory) Status() []applyv1alpha1.Member {
	out := make([]applyv1alpha1.Member, 0, len(inv.entries))
	for _, e := range inv.sorted() {
		m := applyv1alpha1.Member{
			ObjectReference: applyv1alpha1.ObjectReference{Group: e.Ref.GroupKind.Group, Kind: e.Ref.GroupKind.Kind, Namespace: e.Ref.Namespace, Name: e.Ref.Name},
			UID:             string(e.UID),
		}
		if e.Cascade {
			m.Cascade = ptr.To(true)
		}
		out = append(out, m)
	}
	return out
}

// Len is the number of members.
func (inv Inventory) Len() int { return len(inv.entries) }

// Entries returns the members, sorted.
func (inv Inventory) Entries() []Entry { return inv.sorted() }

// Refs returns the members' references, sorted.
func (inv Inventory) Refs() []apply.ObjectRef {
	refs := make([]apply.ObjectRef, 0, len(inv.entries))
	for _, e := range inv.sorted() {
		refs = append(refs, e.Ref)
	}
	return refs
}

// Get returns the entry of ref.
func (inv Inventory) Get(ref apply.ObjectRef) (Entry, bool) {
	e, ok := inv.entries[ref]
	return e, ok
}

// Cascade reports whether the declaration of the member ref allowed its
// deletion to take what else lives in it: the prune's Cascade.
func (inv Inventory) Cascade(ref apply.ObjectRef) bool {
	return inv.entries[ref].Cascade
}

// Proof proves an object found by the set's label to be a member when its
// UID is recorded for it. An entry recorded before UIDs were kept proves the
// object of its name only while legacyManager (the operator's own field
// manager) applied the object's label: both records then say the set
// applied it, and the next reconcile records the UID.
func (inv Inventory) Proof(legacyManager string) apply.Proof {
	appliedByOperator := apply.LabelAppliedBy(sets.New(legacyManager))
	return func(ref apply.ObjectRef, obj *metav1.PartialObjectMetadata) bool {
		return inv.Proves(ref, obj.UID, func() bool { return appliedByOperator(ref, obj) })
	}
}

// Proves tells whether the object ref of uid is a member: its UID is
// recorded for it, or its entry was recorded before UIDs were kept and
// labelApplied says the operator's own apply wrote its label. It is the one
// judgement of membership: prune, deletion and the plugin's view all ask it.
func (inv Inventory) Proves(ref apply.ObjectRef, uid types.UID, labelApplied func() bool) bool {
	e, ok := inv.entries[ref]
	switch {
	case !ok:
		return false
	case e.UID != "":
		return e.UID == uid
	}
	return labelApplied()
}

// Observed is what one reconcile saw and did.
type Observed struct {
	// Listed are the members a listing by the set's label found and proved,
	// by UID; nil when nothing was listed (no prune, or it failed), and the
	// recorded members are then kept as they are.
	Listed map[apply.ObjectRef]types.UID
	// Applied are the apply's changes: each one with an Object is a member now.
	Applied []apply.Change
	// Released are changes of a prune or disband: Pruned objects are
	// deleted (or on their way), Disbanded ones no longer carry the label.
	Released []apply.Change
	// Declared are the declared objects, for their cascade annotation.
	Declared map[apply.ObjectRef]*unstructured.Unstructured
}

// Next is the inventory after a reconcile: the recorded members a listing
// still found (all of them when there was none), with their UIDs, every
// object the apply left, and by name every object whose apply had no
// answer, less the pruned (once gone, where a later delete waits for them)
// and the released.
func (inv Inventory) Next(o Observed) Inventory {
	next := Inventory{entries: make(map[apply.ObjectRef]Entry, len(inv.entries))}
	for ref, e := range inv.entries {
		if o.Listed == nil {
			next.entries[ref] = e
			continue
		}
		if uid, found := o.Listed[ref]; found {
			e.UID = uid
			next.entries[ref] = e
		}
	}
	for _, c := range o.Applied {
		if _, recorded := next.entries[c.Ref]; c.Unsure && c.Object == nil && !recorded {
			// Its apply may have been made: it is recorded by name, proven as
			// an entry without a UID is, and the next listing learns its UID
			// or drops it.
			next.entries[c.Ref] = Entry{Ref: c.Ref}
			continue
		}
		if c.Object == nil || c.Object.GetUID() == "" {
			continue
		}
		e := Entry{Ref: c.Ref, UID: c.Object.GetUID()}
		if declared := o.Declared[c.Ref]; declared != nil {
			e.Cascade = cascades(declared)
		}
		next.entries[c.Ref] = e
	}
	for _, c := range o.Released {
		// A member deleted but still going stays, so that the next prune
		// orders its deletes after it; the next listing that misses it drops it.
		if c.Action == apply.Disbanded || (c.Action == apply.Pruned && !c.Going) {
			delete(next.entries, c.Ref)
		}
	}
	return next
}

// Rebase carries what a run changed in the record, from base (the record
// it read) to next (the record it would write), onto live (the record as
// stored now, which another run may have written since base). A member next
// adds, or records with another UID or cascade, is recorded; a member next
// drops is dropped only where live still records it as base did; whatever
// else live records stays. So a run that read the record stale neither
// loses a member another run recorded, nor leaves out one it applied
// itself.
func Rebase(base, next, live Inventory) Inventory {
	out := Inventory{entries: make(map[apply.ObjectRef]Entry, max(len(live.entries), len(next.entries)))}
	for ref, e := range live.entries {
		out.entries[ref] = e
	}
	for ref, e := range next.entries {
		if was, ok := base.entries[ref]; !ok || was != e {
			out.entries[ref] = e
		}
	}
	for ref, was := range base.entries {
		if _, kept := next.entries[ref]; !kept && live.entries[ref] == was {
			delete(out.entries, ref)
		}
	}
	return out
}

// Equal reports whether inv and other record the same members.
func (inv Inventory) Equal(other Inventory) bool {
	return maps.Equal(inv.entries, other.entries)
}

// cascades reports whether a declared CustomResourceDefinition or Namespace
// allows its deletion to take what else lives in it.
func cascades(obj *unstructured.Unstructured) bool {
	return apply.Occupiable(obj.GroupVersionKind().GroupKind()) && obj.GetAnnotations()[CascadeAnnotation] == "allow"
}

func (inv Inventory) sorted() []Entry {
	out := make([]Entry, 0, len(inv.entries))
	for _, e := range inv.entries {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Ref.GroupKind.Group, b.Ref.GroupKind.Group), cmp.Compare(a.Ref.GroupKind.Kind, b.Ref.GroupKind.Kind),
			cmp.Compare(a.Ref.Namespace, b.Ref.Namespace), cmp.Compare(a.Ref.Name, b.Ref.Name))
	})
	return out
}

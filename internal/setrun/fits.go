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

package setrun

import (
	"encoding/json"
	"fmt"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// MaxPlanBytes is status.plan's share of a set's status: the plan counts
// every object and names the first that fit.
const MaxPlanBytes = 32 << 10

// maxSetBytes is the most one set may take as etcd stores it: etcd refuses
// a request over 1.5 MiB (its default --max-request-bytes), and a set's
// metadata, spec and status are one object. The margin leaves room for
// what grows between the check and the write: managedFields, annotations.
const maxSetBytes = 1_400_000

// statusReserve is what status holds besides its members and plan, each
// part bounded apart: conditions, sources, health, warnings, foreign
// members, and conflicts and drift (maxListBytes each).
const statusReserve = 96 << 10

// memberOverhead is what a member takes in status besides its names: the
// keys, quotes and commas of its JSON, and its UID.
const memberOverhead = 96

// inventoryFits is nil when the set, with every declared object recorded as
// a member beside the members it has, still fits what etcd stores, room
// for its plan and the rest of its status included. It is asked before
// the reconcile writes anything: a set whose status could not be written
// would label objects it never records, and so never prunes. members is
// how many the set may record then; over layout.Inline they live in chunks,
// and status holds only their names.
func inventoryFits(set applyv1alpha1.Set, inv inventory.Inventory, objects []apply.Object, layout inventory.Layout) (members int, err error) {
	bare, ok := set.DeepCopyObject().(applyv1alpha1.Set)
	if !ok {
		return 0, fmt.Errorf("copying the set: %T is no set", set)
	}
	*bare.GetSetStatus() = applyv1alpha1.ApplySetStatus{}
	data, err := json.Marshal(bare)
	if err != nil {
		return 0, fmt.Errorf("measuring the set: %w", err)
	}
	prospect := inv.Status()
	size := 0
	for _, m := range prospect {
		size += memberSize(m.Group, m.Kind, m.Namespace, m.Name)
	}
	for _, obj := range objects {
		if _, recorded := inv.Get(obj.Ref()); !recorded {
			ref := obj.Ref()
			prospect = append(prospect, applyv1alpha1.Member{UID: placeholderUID, ObjectReference: applyv1alpha1.ObjectReference{
				Group: ref.GroupKind.Group, Kind: ref.GroupKind.Kind, Namespace: ref.Namespace, Name: ref.Name}})
			size += memberSize(ref.GroupKind.Group, ref.GroupKind.Kind, ref.Namespace, ref.Name)
		}
	}
	members = len(prospect)
	if members > layout.Inline {
		// The chunks must hold them: placed now, before anything is written.
		if _, err := layout.Place(inventory.FromStatus(prospect), inventory.Owner{UID: set.GetUID()}); err != nil {
			return members, fmt.Errorf("the set would record %d members: %w, so nothing was applied or pruned; split it into several sets",
				members, err)
		}
		size = inventory.MaxChunks * chunkRefSize
	}
	if len(data)+size+MaxPlanBytes+statusReserve <= maxSetBytes {
		return members, nil
	}
	return members, fmt.Errorf("the set would record %d members, %s of status, which with its spec and metadata (%s) and room for "+
		"its plan is more than the %s one object may take in etcd, so nothing was applied or pruned; split it into several sets",
		members, text.Bytes(int64(size)), text.Bytes(int64(len(data))), text.Bytes(maxSetBytes))
}

// chunkRefSize is the most one chunk's entry takes in status.inventory.
const chunkRefSize = 160

// placeholderUID stands for the UID a member gets once applied.
const placeholderUID = "00000000-0000-0000-0000-000000000000"

func memberSize(group, kind, namespace, name string) int {
	return len(group) + len(kind) + len(namespace) + len(name) + memberOverhead
}

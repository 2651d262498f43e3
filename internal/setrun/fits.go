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
const MaxPlanBytes = 128 << 10

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
// would label objects it never records, and so never prunes.
func inventoryFits(set applyv1alpha1.Set, inv inventory.Inventory, objects []apply.Object) error {
	bare, ok := set.DeepCopyObject().(applyv1alpha1.Set)
	if !ok {
		return fmt.Errorf("copying the set: %T is no set", set)
	}
	*bare.GetSetStatus() = applyv1alpha1.ApplySetStatus{}
	data, err := json.Marshal(bare)
	if err != nil {
		return fmt.Errorf("measuring the set: %w", err)
	}
	members, size := inv.Len(), 0
	for _, e := range inv.Entries() {
		size += memberSize(e.Ref)
	}
	for _, obj := range objects {
		if _, recorded := inv.Get(obj.Ref()); !recorded {
			members++
			size += memberSize(obj.Ref())
		}
	}
	if len(data)+size+MaxPlanBytes+statusReserve <= maxSetBytes {
		return nil
	}
	return fmt.Errorf("the set would record %d members, %s of status, which with its spec and metadata (%s) and room for "+
		"its plan is more than the %s one object may take in etcd, so nothing was applied or pruned; split it into several sets",
		members, text.Bytes(int64(size)), text.Bytes(int64(len(data))), text.Bytes(maxSetBytes))
}

func memberSize(ref apply.ObjectRef) int {
	return memberOverhead + len(ref.GroupKind.Group) + len(ref.GroupKind.Kind) + len(ref.Namespace) + len(ref.Name)
}

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

package parents

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// Proofs of membership, as view shows them.
const (
	proofRecorded = "recorded"
	proofApplied  = "applied"
	proofLabel    = "label only"
)

// proofsOf says, for each object that carries a set's label, what proves it
// a member. The operator's sets record their members' UIDs, the strong proof
// prune and deletion act on; an object they did not record only carries the
// label. Whether a record proves a member is inventory.Proves, as prune
// asks it. Other tools' sets keep no record: an object whose label the tool's
// own apply wrote is as much a member as can be told, any other carries the label only.
func proofsOf(ctx context.Context, c *cli.Clients, ref membership.ParentRef, v membership.Verdict) (func(membership.Member) string, error) {
	if !cli.IsOperatorSet(ref) {
		// A set, not a search of the list for each member: a big set with
		// many unvouched members would cost their product.
		unvouched := make(map[types.UID]struct{}, len(v.Unvouched))
		for _, u := range v.Unvouched {
			unvouched[u.UID] = struct{}{}
		}
		return func(m membership.Member) string {
			if _, ok := unvouched[m.UID]; ok {
				return proofLabel
			}
			return proofApplied
		}, nil
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	set, err := cli.OperatorSetOf(ctx, cl, ref)
	if err != nil {
		return nil, err
	}
	inv, err := cli.MembersOf(ctx, cl, set)
	if inv == nil {
		return nil, err
	}
	return func(m membership.Member) string {
		ref := apply.ObjectRef{GroupKind: m.GroupKind, Namespace: m.Namespace, Name: m.Name}
		if inv.Proves(ref, m.UID, func() bool { return slices.Contains(m.PartOfAppliedBy, identity.MembersFieldManager) }) {
			return proofRecorded
		}
		return proofLabel
	}, nil
}

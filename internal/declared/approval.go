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

package declared

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// What an approval approves: a plan's writes and deletes, or the deletes
// of the set's deletion. A digest of one never approves the other.
const (
	ApproveChanges  = "changes"
	ApproveDeletes  = "deletes"
	ApproveDeletion = "deletion"
)

// Approvable is what a plan would do that a person approves.
type Approvable struct {
	// What is ApproveChanges, ApproveDeletes or ApproveDeletion.
	What string
	// Writes are the requests it would send; nil for deletes only.
	Writes apply.Intent
	// Deletes are the members it would delete, with their UIDs.
	Deletes map[apply.ObjectRef]types.UID
}

// Empty is true when there is nothing to approve.
func (a Approvable) Empty() bool { return len(a.Writes) == 0 && len(a.Deletes) == 0 }

// digestInput is what a plan's digest covers, each list sorted: the
// requests and the UIDs, the spec fields that change how the set runs, and
// the number of approvals spent. Nothing in it changes on its own
// (resourceVersions, dry-run answers), so a plan that stays the same keeps
// its digest until an approval of it is spent.
type digestInput struct {
	What     string   `json:"what"`
	Sequence int64    `json:"sequence"`
	Identity string   `json:"identity"`
	Force    bool     `json:"force"`
	Prune    bool     `json:"prune"`
	Scope    []string `json:"scope"`
	Deletion string   `json:"deletionPolicy"`
	Writes   []entry  `json:"writes"`
	Deletes  []entry  `json:"deletes"`
}

type entry struct {
	Ref    string `json:"ref"`
	Digest string `json:"digest"`
}

// PlanDigest names what set would do for approval, as sha256:<hex>.
func PlanDigest(set applyv1alpha1.Set, a Approvable) string {
	spec := set.GetCommonSpec()
	saNamespace, saName := set.GetServiceAccount()
	in := digestInput{
		What:     a.What,
		Sequence: ptr.Deref(ptr.Deref(set.GetSetStatus().Approval, applyv1alpha1.ApprovalStatus{}).Sequence, 0),
		Identity: saNamespace + "/" + saName,
		Force:    spec.ForceEnabled(),
		Prune:    spec.PruneEnabled(),
		Scope:    append([]string{set.GetNamespace()}, slices.Sorted(slices.Values(spec.AdditionalNamespaces))...),
		Deletion: string(spec.DeletionPolicy),
		Writes:   entries(a.Writes),
		Deletes:  entries(a.Deletes),
	}
	raw, err := json.Marshal(in)
	if err != nil {
		panic("a digest input of strings always encodes: " + err.Error())
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func entries[V ~string](m map[apply.ObjectRef]V) []entry {
	out := make([]entry, 0, len(m))
	for ref, v := range m {
		out = append(out, entry{Ref: ref.String(), Digest: string(v)})
	}
	slices.SortFunc(out, func(a, b entry) int { return cmp.Compare(a.Ref, b.Ref) })
	return out
}

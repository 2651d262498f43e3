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
	"k8s.io/apimachinery/pkg/util/sets"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// KeepsMembers says why deleting set leaves every member as it is, or ""
// when its deletionPolicy decides: a set that changes nothing (suspended, or
// only previewing) deletes nothing when it goes either.
func KeepsMembers(set applyv1alpha1.Set) string {
	spec := set.GetCommonSpec()
	switch {
	case spec.Suspended():
		return "the set is suspended (spec.suspend), and a suspended set changes nothing"
	case spec.DryRunEnabled():
		return "the set only previews (spec.dryRun), and a preview changes nothing"
	}
	return ""
}

// Release is what deleting a set does to its members: a prune of all of them
// (deletionPolicy Delete) or a disband (Orphan), exactly one of which is
// set. Both look where the parent's hints and the recorded members say, and
// act only on what proven proves.
func Release(set applyv1alpha1.Set, parent applyset.Parent, members []apply.ObjectRef, proven apply.Proof) (
	*apply.PruneOptions, *apply.DisbandOptions) {
	scope, kinds := reachOf(parent, members)
	if set.GetCommonSpec().DeletionPolicy == applyv1alpha1.DeletionPolicyOrphan {
		return nil, &apply.DisbandOptions{SetID: parent.ID, Scope: scope, Kinds: kinds, Proven: proven}
	}
	return &apply.PruneOptions{SetID: parent.ID, ParentUID: string(set.GetUID()), Scope: scope, Kinds: kinds,
		Keep: sets.New[apply.ObjectRef](), Proven: proven}, nil
}

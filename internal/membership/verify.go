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

package membership

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// Reasons of findings about members and hints; parent problems use the
// reasons of package applyset.
const (
	ReasonHintIncomplete    = "HintIncomplete"
	ReasonMemberOutOfScope  = "MemberOutOfScope"
	reasonOwnershipConflict = "OwnershipConflict"
	// reasonHintNamespacesMissing: a cluster-scoped parent's hint lists
	// namespaced kinds but no additional namespace, so no tool looks for
	// those members anywhere.
	reasonHintNamespacesMissing = "HintNamespacesMissing"
	// ReasonMembershipIncomplete: a type the hint lists could not be listed,
	// so its members are unknown and the findings may be incomplete.
	ReasonMembershipIncomplete = "MembershipIncomplete"
)

// maxListed is how many objects a finding names before it counts the rest.
const maxListed = 5

// Facts are what verification knows of the cluster besides the parent.
type Facts struct {
	ParentUID types.UID
	// Members are the objects that claim the parent's ID.
	Members []Member
	// TypeOf and TypeOfResource find the watched type of a kind or of a
	// resource; nil knows none.
	TypeOf         func(schema.GroupKind) (ResourceType, bool)
	TypeOfResource func(schema.GroupResource) (ResourceType, bool)
	// Appliers are the field managers whose server-side apply of a member's
	// part-of label vouches that the parent's tooling made it a member.
	Appliers sets.Set[string]
	// Failing are the types whose members could not be listed.
	Failing []TypeFailure
}

// Verdict is what verification found about one parent and its members.
type Verdict struct {
	Parent applyset.Parent
	// Members are the objects that claim the parent's ID, but for Mirrors.
	Members []Member
	// Mirrors carry the parent's ID because Kubernetes copied a member
	// Service's labels onto them (its Endpoints and EndpointSlices): not
	// members, and never written or pruned for the set.
	Mirrors []Member
	// Kinds are the kinds of the members.
	Kinds sets.Set[schema.GroupKind]
	// HintKinds are the kinds the parent's hint lists: contains-group-kinds,
	// or the kinds of the deprecated contains-group-resources; nil without a hint.
	HintKinds sets.Set[schema.GroupKind]
	// Unvouched are members whose part-of label no apply of the parent's
	// tooling wrote: a repair never adds their kinds to the hint.
	Unvouched []Member
	// Incomplete names the types the parent's members may be in that could
	// not be listed; empty when membership is known.
	Incomplete []string
	// Problems are the parent's own problems and those of its members.
	Problems []applyset.Problem
	// DesiredKinds are the contains-group-kinds to write when repairing: the
	// kinds the hint lists plus those of vouched members it omits. Kinds are
	// only added: a tool writes a superset before it creates members and trims
	// it after it prunes, so a kind without members may be one the tool is
	// about to apply.
	DesiredKinds sets.Set[schema.GroupKind]
}

// DesiredHint is DesiredKinds as the hint annotation spells them.
func (v Verdict) DesiredHint() string { return applyset.FormatGroupKinds(v.DesiredKinds) }

// Clean reports whether verification found nothing wrong with the ApplySet
// contract. It says nothing of the members' health, which kstatus judges.
func (v Verdict) Clean() bool { return len(v.Problems) == 0 }

// NeedsRepair reports whether a repair would change the hint: it is missing,
// or it omits the kind of a vouched member.
func (v Verdict) NeedsRepair() bool {
	return v.Parent.Trusted() && (v.HintKinds == nil || !v.HintKinds.IsSuperset(v.DesiredKinds))
}

// Verify checks a parent against the members that claim its ID. It makes no
// API calls. Members are only judged when the parent's ID is its own: an
// untrusted parent says nothing about anyone's members.
func Verify(parent applyset.Parent, facts Facts) Verdict {
	v := Verdict{Parent: parent, Problems: slices.Clone(parent.Problems), Kinds: sets.New[schema.GroupKind]()}
	if !parent.Trusted() {
		return v
	}
	applied := func(m Member) bool { return slices.ContainsFunc(m.PartOfAppliedBy, facts.Appliers.Has) }
	v.Members, v.Mirrors = splitMirrors(facts.Members, applied)
	v.HintKinds = hintKinds(parent, facts)
	vouched := sets.New[schema.GroupKind]()
	var outOfScope, foreignOwned []string
	for _, m := range v.Members {
		v.Kinds.Insert(m.GroupKind)
		if applied(m) {
			vouched.Insert(m.GroupKind)
		} else {
			v.Unvouched = append(v.Unvouched, m)
		}
		if !parent.Scope.Contains(m.Namespace) {
			outOfScope = append(outOfScope, m.String())
		}
		if len(m.OwnerReferences) > 0 && !slices.ContainsFunc(m.OwnerReferences, func(ref metav1.OwnerReference) bool { return ref.UID == facts.ParentUID }) {
			foreignOwned = append(foreignOwned, m.String())
		}
	}
	v.DesiredKinds = vouched.Union(v.HintKinds)

	if v.HintKinds != nil {
		if missing := v.Kinds.Difference(v.HintKinds); missing.Len() > 0 {
			v.problem(ReasonHintIncomplete, "the hint omits %s: kubectl does not look at, and never prunes, members of those kinds%s",
				applyset.FormatGroupKinds(missing), unvouchedNote(missing.Difference(vouched)))
		}
	}
	if len(outOfScope) > 0 {
		v.problem(ReasonMemberOutOfScope, "members outside the namespaces the parent may hold (%s): %s",
			scopeText(parent.Scope), text.Summarize(outOfScope, maxListed))
	}
	if len(foreignOwned) > 0 {
		v.problem(reasonOwnershipConflict, "members owned by other objects than the parent, never pruned: %s",
			text.Summarize(foreignOwned, maxListed))
	}
	v.checkNamespacedKinds(facts)
	v.checkListed(facts)
	return v
}

// hintKinds reads the kinds of the parent's hint, mapping the deprecated
// resources hint to kinds through the watched types, as kubectl does with
// discovery. Resources the cluster does not serve have no members to name.
func hintKinds(parent applyset.Parent, facts Facts) sets.Set[schema.GroupKind] {
	if parent.GroupKinds != nil || parent.GroupResources == nil {
		return parent.GroupKinds
	}
	kinds := sets.New[schema.GroupKind]()
	for gr := range parent.GroupResources {
		if facts.TypeOfResource == nil {
			break
		}
		if rt, ok := facts.TypeOfResource(gr); ok {
			kinds.Insert(rt.GroupKind)
		}
	}
	return kinds
}

func unvouchedNote(kinds sets.Set[schema.GroupKind]) string {
	if kinds.Len() == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s not added by a repair: no apply of the set's tooling wrote their %s label)",
		applyset.FormatGroupKinds(kinds), applyset.PartOfLabel)
}

// checkNamespacedKinds finds a cluster-scoped parent whose hint lists
// namespaced kinds while no additional namespace says where to look.
func (v *Verdict) checkNamespacedKinds(facts Facts) {
	if v.Parent.Key.Namespace != "" || v.Parent.Scope.AdditionalNamespaces.Len() > 0 || facts.TypeOf == nil {
		return
	}
	namespaced := sets.New[schema.GroupKind]()
	for gk := range v.HintKinds {
		if rt, ok := facts.TypeOf(gk); ok && rt.Namespaced {
			namespaced.Insert(gk)
		}
	}
	if namespaced.Len() > 0 {
		v.problem(reasonHintNamespacesMissing, "the parent is cluster-scoped and its hint lists namespaced kinds (%s), but %s "+
			"names no namespace: no tool looks for those members", applyset.FormatGroupKinds(namespaced), applyset.AdditionalNamespacesAnnotation)
	}
}

// checkListed notes the types of the hint (all types, without a hint) that
// could not be listed: members of theirs are unknown.
func (v *Verdict) checkListed(facts Facts) {
	var missing []string
	for _, f := range facts.Failing {
		switch {
		case v.HintKinds != nil && !v.HintKinds.Has(f.GroupKind):
		case f.Namespace != "":
			missing = append(missing, fmt.Sprintf("%s outside namespace %s (%v)", f.Resource.GroupResource(), f.Namespace, f.Err))
		default:
			missing = append(missing, fmt.Sprintf("%s (%v)", f.Resource.GroupResource(), f.Err))
		}
	}
	if len(missing) == 0 {
		return
	}
	v.Incomplete = missing
	v.problem(ReasonMembershipIncomplete, "members of %s could not be listed, so these findings may be incomplete",
		text.Summarize(missing, maxListed))
}

func (v *Verdict) problem(reason, format string, args ...any) {
	v.Problems = append(v.Problems, applyset.Problem{Reason: reason, Message: fmt.Sprintf(format, args...)})
}

func scopeText(s applyset.Scope) string {
	if ns := s.Namespaces(); len(ns) > 0 {
		return strings.Join(ns, ", ") + " and cluster scope"
	}
	return "cluster scope only"
}

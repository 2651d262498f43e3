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
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/applyset-operator/applyset-operator/internal/text"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/membership"
)

// Reasons of findings about members and hints; parent problems use the
// reasons of package applyset.
const (
	ReasonHintIncomplete    = "HintIncomplete"
	ReasonMemberOutOfScope  = "MemberOutOfScope"
	ReasonOwnershipConflict = "OwnershipConflict"
)

// maxListed is how many objects a finding names before it counts the rest.
const maxListed = 5

// Verdict is what verification found about one parent and its members.
type Verdict struct {
	Parent applyset.Parent
	// Members are the objects that claim the parent's ID.
	Members []membership.Member
	// Kinds are the kinds of the members.
	Kinds sets.Set[schema.GroupKind]
	// Problems are the parent's own problems and those of its members.
	Problems []applyset.Problem
	// DesiredKinds are the contains-group-kinds to write when repairing: the
	// kinds the hint lists plus those of members it omits. Kinds are only added:
	// a tool writes a superset before it creates members and trims it after it
	// prunes, so a kind without members may be one the tool is about to apply.
	DesiredKinds sets.Set[schema.GroupKind]
}

// DesiredHint is DesiredKinds as the hint annotation spells them.
func (v Verdict) DesiredHint() string { return applyset.FormatGroupKinds(v.DesiredKinds) }

// Healthy reports whether nothing is wrong.
func (v Verdict) Healthy() bool { return len(v.Problems) == 0 }

// HintCurrent reports whether the parent's hint already reads DesiredHint.
func (v Verdict) HintCurrent(annotations map[string]string) bool {
	value, ok := annotations[applyset.GroupKindsAnnotation]
	return ok && value == v.DesiredHint()
}

// Verify checks a parent against the members that claim its ID. It makes no
// API calls. Members are only judged when the parent's ID is its own: an
// untrusted parent says nothing about anyone's members.
func Verify(parent applyset.Parent, parentUID types.UID, members []membership.Member) Verdict {
	v := Verdict{Parent: parent, Problems: slices.Clone(parent.Problems), Kinds: sets.New[schema.GroupKind]()}
	if !parent.Trusted() {
		return v
	}
	v.Members = members
	var outOfScope, foreignOwned []string
	for _, m := range members {
		v.Kinds.Insert(m.GroupKind)
		if !parent.Scope.Contains(m.Namespace) {
			outOfScope = append(outOfScope, m.String())
		}
		if len(m.OwnerReferences) > 0 && !slices.ContainsFunc(m.OwnerReferences, func(ref metav1.OwnerReference) bool { return ref.UID == parentUID }) {
			foreignOwned = append(foreignOwned, m.String())
		}
	}
	v.DesiredKinds = v.Kinds.Union(parent.GroupKinds)

	if parent.GroupKinds != nil {
		if missing := v.Kinds.Difference(parent.GroupKinds); missing.Len() > 0 {
			v.problem(ReasonHintIncomplete, "%s omits %s: kubectl does not look at, and never prunes, members of those kinds",
				applyset.GroupKindsAnnotation, applyset.FormatGroupKinds(missing))
		}
	}
	if len(outOfScope) > 0 {
		v.problem(ReasonMemberOutOfScope, "members outside the namespaces the parent may hold (%s): %s",
			scopeText(parent.Scope), text.Summarize(outOfScope, maxListed))
	}
	if len(foreignOwned) > 0 {
		v.problem(ReasonOwnershipConflict, "members owned by other objects than the parent, never pruned: %s",
			text.Summarize(foreignOwned, maxListed))
	}
	return v
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

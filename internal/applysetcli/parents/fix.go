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
	"encoding/json"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// hintFix is the rewrite of one parent's hints.
type hintFix struct {
	parent     checkedParent
	kinds      sets.Set[schema.GroupKind]
	namespaces sets.Set[string]
	before     [2]string // contains-group-kinds, additional-namespaces
	after      [2]string
}

// planFix works out the hints a parent's members need, or why it is not rewritten.
func planFix(p checkedParent) (*hintFix, string) {
	v := p.verdict
	switch {
	case !v.Parent.Trusted():
		return nil, "its ID is not its own, so its members are not its to describe"
	case identity.Owns(v.Parent.Tooling):
		return nil, "the operator keeps the hints of its own sets"
	case len(v.Incomplete) > 0:
		return nil, "not every type could be listed, so its members are not all known"
	}
	fix := &hintFix{parent: p, kinds: sets.New[schema.GroupKind](), namespaces: sets.New[string]()}
	for _, m := range v.Members {
		if !isUnvouched(v.Unvouched, m.UID) {
			fix.kinds.Insert(m.GroupKind)
			if m.Namespace != "" {
				fix.namespaces.Insert(m.Namespace)
			}
		}
	}
	annotations := p.Object.Annotations
	fix.before = [2]string{annotations[applyset.GroupKindsAnnotation], annotations[applyset.AdditionalNamespacesAnnotation]}
	fix.after = [2]string{applyset.FormatGroupKinds(fix.kinds), applyset.FormatNamespaces(fix.namespaces, p.Ref.Namespace)}
	_, hasKinds := annotations[applyset.GroupKindsAnnotation]
	_, hasNamespaces := annotations[applyset.AdditionalNamespacesAnnotation]
	if fix.before == fix.after && hasKinds && (hasNamespaces || fix.after[1] == "") {
		return nil, ""
	}
	return fix, ""
}

func isUnvouched(unvouched []membership.Member, uid types.UID) bool {
	for _, m := range unvouched {
		if m.UID == uid {
			return true
		}
	}
	return false
}

// fixHints shows on w and makes the rewrites the checked parents need, and
// reports whether it wrote any.
func fixHints(ctx context.Context, s *cli.Surveyed, w io.Writer, checked []checkedParent) (bool, error) {
	var fixes []*hintFix
	for _, p := range checked {
		fix, why := planFix(p)
		name := cli.ParentName(p.Ref) + cli.InNamespace(p.Ref.Namespace)
		switch {
		case why != "":
			fmt.Fprintf(w, "%s: not rewritten: %s\n", name, why)
		case fix == nil:
			fmt.Fprintf(w, "%s: hints already match its members\n", name)
		default:
			fmt.Fprintf(w, "%s: %s %q -> %q, %s %q -> %q (field manager %s)\n", name,
				applyset.GroupKindsAnnotation, fix.before[0], fix.after[0],
				applyset.AdditionalNamespacesAnnotation, fix.before[1], fix.after[1], p.verdict.Parent.Tooling.ParentFieldManager())
			fixes = append(fixes, fix)
		}
		if len(p.verdict.Unvouched) > 0 {
			fmt.Fprintf(w, "%s: %d members not counted: no apply of %s wrote their %s label\n",
				name, len(p.verdict.Unvouched), p.verdict.Parent.Tooling.Name, applyset.PartOfLabel)
		}
	}
	if len(fixes) == 0 {
		return false, nil
	}
	if err := s.Confirm(fmt.Sprintf("Rewrite the hints of %d parents?", len(fixes))); err != nil {
		return false, err
	}
	dr := s.DryRun
	for _, fix := range fixes {
		if err := applyFix(ctx, s.Clients, fix, dr); err != nil {
			return false, err
		}
		fmt.Fprintf(w, "%s%s: hints rewritten%s\n", cli.ParentName(fix.parent.Ref), cli.InNamespace(fix.parent.Ref.Namespace), dr.Suffix())
	}
	return !dr.Server(), nil
}

// applyFix writes the parent's contract fields as its tool does, all of them,
// so the tool's field manager keeps owning each; like kubectl, it takes the
// fields over when another manager holds them.
func applyFix(ctx context.Context, c *cli.Clients, fix *hintFix, dr *cli.DryRun) error {
	p := fix.parent
	tooling := p.verdict.Parent.Tooling
	gvk := p.Ref.Type.Resource.GroupVersion().WithKind(p.Ref.Type.GroupKind.Kind)
	patch := applyset.ParentPatch(gvk, p.Ref.Key(), applyset.ParentFields{
		ID: true, Tooling: &tooling, GroupKinds: fix.kinds, AdditionalNamespaces: fix.namespaces,
	})
	data, err := json.Marshal(patch.Object)
	if err != nil {
		return err
	}
	resource := c.Dynamic.Resource(p.Ref.Type.Resource).Namespace(p.Ref.Namespace)
	opts := metav1.PatchOptions{FieldManager: tooling.ParentFieldManager(), DryRun: dr.Opts()}
	_, err = resource.Patch(ctx, p.Ref.Name, types.ApplyPatchType, data, opts)
	if apierrors.IsConflict(err) {
		opts.Force = ptr.To(true)
		_, err = resource.Patch(ctx, p.Ref.Name, types.ApplyPatchType, data, opts)
	}
	if err != nil {
		return fmt.Errorf("rewriting the hints of %s: %w", cli.ParentName(p.Ref), err)
	}
	return nil
}

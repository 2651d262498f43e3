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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Plan is what applying a set's checked objects does: the apply, the prune
// when the set prunes, and the hints its parent needs before and after.
type Plan struct {
	Apply apply.ApplyOptions
	// Prune is nil when the set does not prune.
	Prune *apply.PruneOptions
	// Kinds and Namespaces are what the declared objects need of the hints
	// (Namespaces without the set's own).
	Kinds      sets.Set[schema.GroupKind]
	Namespaces sets.Set[string]
	// HintKinds and HintNamespaces are the hints during the apply: the union
	// of the parent's current hints and the new set's, so that an interrupted
	// apply leaves no member outside them and a prune reaches the members
	// that left.
	HintKinds      sets.Set[schema.GroupKind]
	HintNamespaces sets.Set[string]
}

// NewPlan plans the apply of objects, declared by set, whose parent reads as
// parent and whose ID is setID.
func NewPlan(set applyv1alpha1.Set, parent applyset.Parent, objects []apply.Object, setID string, dryRun bool) Plan {
	spec := set.GetCommonSpec()
	p := Plan{Kinds: sets.New[schema.GroupKind](), Namespaces: sets.New[string]()}
	for _, o := range objects {
		p.Kinds.Insert(o.Ref().GroupKind)
		if ns := o.Object.GetNamespace(); ns != "" && ns != set.GetNamespace() {
			p.Namespaces.Insert(ns)
		}
	}
	p.HintKinds = p.Kinds.Union(CurrentKinds(parent))
	p.HintNamespaces = p.Namespaces.Union(parent.Scope.AdditionalNamespaces)
	p.Apply = apply.ApplyOptions{SetID: setID, DryRun: dryRun, Force: spec.ForceEnabled(), Ignore: IgnoreRules(spec.IgnoreFields)}
	if spec.PruneEnabled() {
		keep := sets.New[apply.ObjectRef]()
		for _, o := range objects {
			keep.Insert(o.Ref())
		}
		p.Prune = &apply.PruneOptions{
			SetID: setID, ParentUID: string(set.GetUID()), Kinds: p.HintKinds, Keep: keep, DryRun: dryRun,
			Scope: applyset.Scope{Namespace: set.GetNamespace(), AdditionalNamespaces: p.HintNamespaces.Union(sets.New(spec.AdditionalNamespaces...))},
		}
	}
	return p
}

// CurrentKinds are the kinds of the parent's hint, none when it has none.
func CurrentKinds(p applyset.Parent) sets.Set[schema.GroupKind] {
	if p.GroupKinds == nil {
		return sets.New[schema.GroupKind]()
	}
	return p.GroupKinds
}

// IgnoreRules maps the spec's ignoreFields onto the engine's rules. Paths are
// validated by the API server; one that still does not parse is skipped.
func IgnoreRules(fields []applyv1alpha1.IgnoreFields) []apply.IgnoreRule {
	rules := make([]apply.IgnoreRule, 0, len(fields))
	for _, f := range fields {
		rule := apply.IgnoreRule{GroupKind: schema.GroupKind{Group: f.Group, Kind: f.Kind}, Namespace: f.Namespace, Name: f.Name}
		for _, p := range f.Paths {
			if names, err := apply.ParseFieldPath(p); err == nil {
				rule.Paths = append(rule.Paths, names)
			}
		}
		rules = append(rules, rule)
	}
	return rules
}

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

// Hints are what a parent's contains-group-kinds and additional-namespaces
// annotations say: the kinds of its members and the namespaces, besides its
// own, they live in.
type Hints struct {
	Kinds      sets.Set[schema.GroupKind]
	Namespaces sets.Set[string]
}

// Options are what applying a set's checked objects does: the apply, the prune
// when the set prunes, and the hints its parent carries through both.
//
// The hints follow kubectl's protocol: widened before the apply (Widened),
// narrowed after a prune (Narrowed).
type Options struct {
	Apply apply.ApplyOptions
	// Prune is nil when the set does not prune.
	Prune *apply.PruneOptions
	// Declared are the hints the declared objects need.
	Declared Hints
	// Widened are the hints during the apply: the union of the parent's
	// current hints and Declared, so that an interrupted apply leaves no
	// member outside them and a prune reaches the members that left.
	Widened Hints

	// namespace is the set's own, which the hints never list.
	namespace string
}

// NewOptions are the options of the apply of objects, declared by set, whose parent reads as
// parent and whose ID is setID. members are the set's recorded members: the
// prune looks where they are too, whatever the hints say.
func NewOptions(set applyv1alpha1.Set, parent applyset.Parent, objects []apply.Object, members []apply.ObjectRef, setID string, dryRun bool) Options {
	spec := set.GetCommonSpec()
	p := Options{namespace: set.GetNamespace()}
	p.Declared = p.hintsOf(objectRefs(objects))
	recorded := p.hintsOf(members)
	p.Widened = Hints{
		Kinds:      p.Declared.Kinds.Union(currentKinds(parent)).Union(recorded.Kinds),
		Namespaces: p.Declared.Namespaces.Union(parent.Scope.AdditionalNamespaces).Union(recorded.Namespaces),
	}
	p.Apply = apply.ApplyOptions{SetID: setID, DryRun: dryRun, Force: spec.ForceEnabled(), Ignore: ignoreRules(spec.IgnoreFields),
		LeaveDrift: spec.ReportsDrift(),
		Recorded:   sets.New(members...)}
	if spec.PruneEnabled() {
		listed := currentKinds(parent).Union(recorded.Kinds)
		p.Prune = &apply.PruneOptions{
			SetID: setID, ParentUID: string(set.GetUID()), Kinds: listed, Unlisted: p.Declared.Kinds.Difference(listed),
			Keep: sets.New(objectRefs(objects)...), DryRun: dryRun,
			Scope: applyset.Scope{Namespace: set.GetNamespace(), AdditionalNamespaces: p.Widened.Namespaces.Union(sets.New(spec.AdditionalNamespaces...))},
		}
	}
	return p
}

// Narrowed are the hints after pruned: the declared objects', and those of
// the objects the prune left that still claim the set (members kept,
// failed or still waiting, and foreign objects that carry its label), which
// must stay reachable by the next prune.
func (p Options) Narrowed(pruned apply.ChangeSet) Hints {
	var kept []apply.ObjectRef
	for _, c := range pruned.Changes {
		switch c.Action {
		case apply.Skipped, apply.Failed, apply.Waiting, apply.Foreign:
			kept = append(kept, c.Ref)
		}
	}
	k := p.hintsOf(kept)
	return Hints{Kinds: p.Declared.Kinds.Union(k.Kinds), Namespaces: p.Declared.Namespaces.Union(k.Namespaces)}
}

// hintsOf are the hints refs need.
func (p Options) hintsOf(refs []apply.ObjectRef) Hints {
	h := Hints{Kinds: sets.New[schema.GroupKind](), Namespaces: sets.New[string]()}
	for _, ref := range refs {
		h.Kinds.Insert(ref.GroupKind)
		if ref.Namespace != "" && ref.Namespace != p.namespace {
			h.Namespaces.Insert(ref.Namespace)
		}
	}
	return h
}

func objectRefs(objects []apply.Object) []apply.ObjectRef {
	refs := make([]apply.ObjectRef, 0, len(objects))
	for _, o := range objects {
		refs = append(refs, o.Ref())
	}
	return refs
}

// reachOf is where a set's members are looked for when it is deleted: the
// kinds and namespaces of the parent's hints and of its recorded members.
func reachOf(parent applyset.Parent, members []apply.ObjectRef) (applyset.Scope, sets.Set[schema.GroupKind]) {
	recorded := Options{namespace: parent.Scope.Namespace}.hintsOf(members)
	scope := applyset.Scope{Namespace: parent.Scope.Namespace, AdditionalNamespaces: recorded.Namespaces.Union(parent.Scope.AdditionalNamespaces)}
	return scope, recorded.Kinds.Union(currentKinds(parent))
}

// currentKinds are the kinds of the parent's hint, none when it has none.
func currentKinds(p applyset.Parent) sets.Set[schema.GroupKind] {
	if p.GroupKinds == nil {
		return sets.New[schema.GroupKind]()
	}
	return p.GroupKinds
}

// ignoreRules maps the spec's ignoreFields onto the engine's rules. Paths are
// validated by the API server; one that still does not parse is skipped.
func ignoreRules(fields []applyv1alpha1.IgnoreFields) []apply.IgnoreRule {
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

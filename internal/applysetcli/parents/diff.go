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
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/preview"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// ApplySetDiff is what diff previews for any parent: the apply kubectl would
// make to Parent's set, as --applyset names it, under FieldManager, and with
// Prune the prune that follows.
type ApplySetDiff struct {
	Parent         string
	Prune          bool
	FieldManager   string
	ForceConflicts bool
}

// PreviewApplySet dry-runs the apply kubectl would make for --applyset.
func PreviewApplySet(ctx context.Context, o *cli.Options, c *cli.Clients, inputs []apply.Input, d ApplySetDiff) (*preview.Preview, error) {
	ref, err := cli.ParentOf(c, d.Parent)
	if err != nil {
		return nil, err
	}
	if cli.IsOperatorSet(ref) {
		return nil, fmt.Errorf("%s is one of the operator's sets: preview it with diff -f and the set's own manifest", cli.ParentName(ref))
	}
	parent, uid, err := readParentContract(ctx, c, ref)
	if err != nil {
		return nil, err
	}
	if parent.Tooling.Name != "" && parent.Tooling.Name != "kubectl" {
		return nil, fmt.Errorf("%s%s is managed by %s: kubectl refuses to apply to another tool's set, so there is no apply to preview",
			cli.ParentName(ref), cli.InNamespace(ref.Namespace), parent.Tooling)
	}
	// kubectl widens the set's namespaces to those of its objects.
	scope := applyset.Scope{Namespace: ref.Namespace, AdditionalNamespaces: inputNamespaces(inputs, c.Namespace)}
	objects, warnings, err := apply.Check(inputs, apply.Target{Scope: scope, DefaultNamespace: c.Namespace, Mapper: c.Mapper})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(o.Streams.ErrOut, "Warning: %s\n", w)
	}
	engine, err := c.Engine(d.FieldManager)
	if err != nil {
		return nil, err
	}
	p := &preview.Preview{Declared: map[apply.ObjectRef]apply.Object{}}
	keep := sets.New[apply.ObjectRef]()
	kinds := parent.GroupKinds.Union(kindsOf(c.Mapper, parent.GroupResources))
	for _, obj := range objects {
		p.Declared[obj.Ref()] = obj
		keep.Insert(obj.Ref())
		kinds.Insert(obj.Ref().GroupKind)
	}
	setID := ref.Key().ID()
	p.Changes, err = engine.Apply(ctx, objects, apply.ApplyOptions{SetID: setID, DryRun: true, WithoutDigest: true, Force: d.ForceConflicts})
	if err != nil {
		p.Problems = append(p.Problems, err)
	}
	if d.Prune && uid != "" {
		p.PruneChecked = true
		pruneScope := applyset.Scope{Namespace: ref.Namespace, AdditionalNamespaces: scope.AdditionalNamespaces.Union(parent.Scope.AdditionalNamespaces)}
		// kubectl keeps no inventory: its members are what its apply labelled.
		appliers := membership.NewAppliers(identity.TrustedAppliers()).Of("kubectl")
		// kubectl's prune deletes a CRD or Namespace whatever lives in it: the preview says so.
		p.Pruned, err = engine.Prune(ctx, apply.PruneOptions{SetID: setID, ParentUID: uid, Scope: pruneScope, Kinds: kinds, Keep: keep,
			Proven: apply.LabelAppliedBy(appliers), Cascade: func(apply.ObjectRef) bool { return true }, DryRun: true})
		if err != nil {
			p.Problems = append(p.Problems, err)
		}
	}
	return p, nil
}

// readParentContract reads what the parent says of its set, and its UID; a
// parent that does not exist yet says nothing. A parent that carries another
// set's ID is refused: kubectl would refuse it too.
func readParentContract(ctx context.Context, c *cli.Clients, ref membership.ParentRef) (applyset.Parent, string, error) {
	obj, err := c.Metadata.Resource(ref.Type.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return applyset.Parent{Key: ref.Key(), GroupKinds: sets.New[schema.GroupKind](), Scope: applyset.Scope{Namespace: ref.Namespace}}, "", nil
	}
	if err != nil {
		return applyset.Parent{}, "", err
	}
	parent := applyset.ParseParent(ref.Key(), obj.Labels, obj.Annotations)
	if parent.ID != "" && parent.ID != ref.Key().ID() {
		return parent, "", fmt.Errorf("%s%s carries the ID %s, which is not its own: it is a copy of another set's parent, "+
			"and an apply through it would be refused", cli.ParentName(ref), cli.InNamespace(ref.Namespace), parent.ID)
	}
	if parent.GroupKinds == nil {
		parent.GroupKinds = sets.New[schema.GroupKind]()
	}
	if parent.Scope.AdditionalNamespaces == nil {
		parent.Scope.AdditionalNamespaces = sets.New[string]()
	}
	return parent, string(obj.UID), nil
}

// inputNamespaces are the namespaces the inputs name, and the default one.
func inputNamespaces(inputs []apply.Input, defaultNamespace string) sets.Set[string] {
	out := sets.New(defaultNamespace)
	for _, in := range inputs {
		if ns := in.Object.GetNamespace(); ns != "" {
			out.Insert(ns)
		}
	}
	return out
}

// kindsOf maps the deprecated contains-group-resources hint onto kinds; a
// resource the cluster no longer serves has no objects to prune.
func kindsOf(mapper meta.RESTMapper, resources sets.Set[schema.GroupResource]) sets.Set[schema.GroupKind] {
	out := sets.New[schema.GroupKind]()
	for gr := range resources {
		if gvk, err := mapper.KindFor(gr.WithVersion("")); err == nil {
			out.Insert(gvk.GroupKind())
		}
	}
	return out
}

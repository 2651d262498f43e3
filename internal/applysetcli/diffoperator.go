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

package applysetcli

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/declared"
	"github.com/applyset-operator/applyset-operator/pkg/inventory"
)

// declaresOperatorSets reports whether every input is an ApplySet or a
// ClusterApplySet of the operator.
func declaresOperatorSets(inputs []apply.Input) bool {
	for _, in := range inputs {
		if _, err := operatorSet(in); err != nil {
			return false
		}
	}
	return len(inputs) > 0
}

// operatorSet reads an input as one of the operator's sets.
func operatorSet(in apply.Input) (applyv1alpha1.Set, error) {
	var set applyv1alpha1.Set
	gvk := in.Object.GroupVersionKind()
	switch {
	case gvk.GroupKind() == applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind():
		set = &applyv1alpha1.ApplySet{}
	case gvk.GroupKind() == applyv1alpha1.GroupVersion.WithKind("ClusterApplySet").GroupKind():
		set = &applyv1alpha1.ClusterApplySet{}
	default:
		return nil, fmt.Errorf("%s: %s is not an ApplySet or a ClusterApplySet", in.Origin, gvk.Kind)
	}
	if gvk.Version != applyv1alpha1.GroupVersion.Version {
		return nil, fmt.Errorf("%s: version %s is not served by this plugin; use %s", in.Origin, gvk.Version, applyv1alpha1.GroupVersion)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(in.Object.Object, set, true); err != nil {
		return nil, fmt.Errorf("%s: %w", in.Origin, err)
	}
	return set, nil
}

// previewOperator dry-runs what the operator would do with each set: read its
// sources, check its objects, apply them and prune what left it, with the
// operator's field manager. The requests are made as the user.
func (d *diffOptions) previewOperator(ctx context.Context, o *Options, c *clients, inputs []apply.Input) (*preview, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	all := &preview{declared: map[apply.ObjectRef]apply.Object{}}
	for _, in := range inputs {
		set, err := operatorSet(in)
		if err != nil {
			return nil, err
		}
		if _, namespaced := set.(*applyv1alpha1.ApplySet); namespaced && set.GetNamespace() == "" {
			set.SetNamespace(c.namespace)
		}
		p, err := d.previewSet(ctx, o, cl, c, set)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Origin, err)
		}
		all.changes.Append(p.changes)
		all.pruned.Append(p.pruned)
		all.pruneChecked = all.pruneChecked || p.pruneChecked
		for ref, obj := range p.declared {
			all.declared[ref] = obj
		}
		all.problems = append(all.problems, p.problems...)
	}
	fmt.Fprintln(o.Streams.ErrOut, "Previewed with your rights; the operator acts as each set's ServiceAccount: "+
		"add --as=system:serviceaccount:NAMESPACE:NAME to preview with its rights")
	return all, nil
}

func (d *diffOptions) previewSet(ctx context.Context, o *Options, cl client.Client, c *clients, set applyv1alpha1.Set) (*preview, error) {
	gvk := set.GetObjectKind().GroupVersionKind()
	key := applyset.ParentKey{GroupKind: gvk.GroupKind(), Namespace: set.GetNamespace(), Name: set.GetName()}
	parent := applyset.Parent{Key: key}
	live, _ := set.DeepCopyObject().(client.Object)
	inv := inventory.FromStatus(nil)
	err := cl.Get(ctx, client.ObjectKeyFromObject(set), live)
	exists := err == nil
	switch {
	case exists:
		parent = applyset.ParseParent(key, live.GetLabels(), live.GetAnnotations())
		set.SetUID(live.GetUID())
		inv = inventory.FromStatus(live.(applyv1alpha1.Set).GetSetStatus().Members)
	case !apierrors.IsNotFound(err):
		return nil, err
	}
	spec := set.GetCommonSpec()
	scope := applyset.Scope{Namespace: set.GetNamespace(), AdditionalNamespaces: sets.New(spec.AdditionalNamespaces...)}
	gathered, err := d.gather(ctx, o, cl, set)
	if err != nil {
		return nil, err
	}
	objects, warnings, err := apply.Check(gathered.Inputs, apply.Target{Scope: scope, DefaultNamespace: set.GetNamespace(), Mapper: c.mapper})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(o.Streams.ErrOut, "Warning: %s\n", w)
	}
	if exists {
		// The operator stops such a set (EmptySource) and applies and prunes nothing, so there is nothing to show.
		counts := declared.CountBySource(set, objects, gathered)
		if err := declared.RefuseEmpty(set, live.(applyv1alpha1.Set).GetSetStatus(), objects, counts); err != nil {
			return &preview{declared: map[apply.ObjectRef]apply.Object{}, problems: []error{fmt.Errorf("the operator would stop %s/%s (%s): %w",
				set.GetObjectKind().GroupVersionKind().Kind, set.GetName(), applyv1alpha1.ReasonEmptySource, err)}}, nil
		}
	}
	plan := declared.NewPlan(set, parent, objects, inv.Refs(), key.ID(), true)
	engine := &apply.Engine{Client: cl, FieldManager: identity.MembersFieldManager, Discovery: c.disco}
	p := &preview{declared: map[apply.ObjectRef]apply.Object{}}
	for _, obj := range objects {
		p.declared[obj.Ref()] = obj
	}
	if p.changes, err = engine.Apply(ctx, objects, plan.Apply); err != nil {
		p.problems = append(p.problems, err)
	}
	// A set that was never applied has no members to prune.
	if plan.Prune != nil && exists && err == nil {
		p.pruneChecked = true
		plan.Prune.Proven = inv.Proof(identity.MembersFieldManager)
		plan.Prune.Cascade = inv.Cascade
		if p.pruned, p.deletes, err = pruneShowing(ctx, engine, *plan.Prune); err != nil {
			p.problems = append(p.problems, err)
		}
	}
	return p, nil
}

// gather reads the set's inputs as the operator would, but as the user: its
// ConfigMaps, Secrets, Flux objects and the Secrets of its oci sources with
// the user's rights, and its artifacts from the hosts the user names, within
// the same bounds. It says which artifact each oci and flux source read.
func (d *diffOptions) gather(ctx context.Context, o *Options, cl client.Client, set applyv1alpha1.Set) (declared.Gathered, error) {
	artifacts, err := d.hosts.artifacts()
	if err != nil {
		return declared.Gathered{}, err
	}
	g, err := declared.GatherWith(ctx, cl, set, declared.Limits{Bytes: d.maxInput, Objects: declared.DefaultLimits.Objects}, artifacts)
	if err != nil {
		return g, err
	}
	kind := set.GetObjectKind().GroupVersionKind().Kind
	for i, src := range set.GetSources() {
		switch {
		case i >= len(g.Digests):
		case src.OCI != nil:
			fmt.Fprintf(o.Streams.ErrOut, "%s/%s: spec.sources[%d] %s is %s\n", kind, set.GetName(), i, ociVersion(src.OCI), g.Digests[i])
		case src.Flux != nil && i < len(g.Revisions):
			fmt.Fprintf(o.Streams.ErrOut, "%s/%s: %srevision %s is %s\n", kind, set.GetName(), declared.FluxOrigin(i, src), g.Revisions[i], g.Digests[i])
		}
	}
	return g, nil
}

// ociVersion names the artifact an oci source asks for: by its tag, when
// it has one, as the digest printed beside it says which artifact was read.
func ociVersion(oci *applyv1alpha1.OCISource) string {
	if oci.Tag != "" {
		return oci.URL + ":" + oci.Tag
	}
	return oci.URL
}

// pruneShowing previews a prune and says what it would delete, by UID.
func pruneShowing(ctx context.Context, engine *apply.Engine, opts apply.PruneOptions) (apply.ChangeSet, map[apply.ObjectRef]types.UID, error) {
	plan, err := engine.PlanPrune(ctx, opts)
	if err != nil {
		return apply.ChangeSet{DryRun: opts.DryRun}, nil, err
	}
	cs, err := engine.ExecutePrune(ctx, plan)
	return cs, plan.Deletes(), err
}

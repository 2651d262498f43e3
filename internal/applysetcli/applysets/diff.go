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

package applysets

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/preview"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// DeclaresSets reports whether every input is an ApplySet or a
// ClusterApplySet of the operator.
func DeclaresSets(inputs []apply.Input) bool {
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

// Fetch is how a preview reads the sources of the operator's sets: at most
// MaxInput bytes, and oci and flux artifacts only from the hosts Hosts names.
type Fetch struct {
	MaxInput int64
	Hosts    ArtifactHosts
}

// PreviewSets dry-runs what the operator would do with each set: read its
// sources, check its objects, apply them and prune what left it, with the
// operator's field manager. The requests are made as the user.
func PreviewSets(ctx context.Context, o *cli.Options, c *cli.Clients, inputs []apply.Input, f Fetch) (*preview.Preview, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	all := &preview.Preview{Declared: map[apply.ObjectRef]apply.Object{}}
	for _, in := range inputs {
		set, err := operatorSet(in)
		if err != nil {
			return nil, err
		}
		if _, namespaced := set.(*applyv1alpha1.ApplySet); namespaced && set.GetNamespace() == "" {
			set.SetNamespace(c.Namespace)
		}
		p, _, err := f.previewSet(ctx, o, cl, c, set, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Origin, err)
		}
		all.Changes.Append(p.Changes)
		all.Pruned.Append(p.Pruned)
		all.PruneChecked = all.PruneChecked || p.PruneChecked
		for ref, obj := range p.Declared {
			all.Declared[ref] = obj
		}
		all.Problems = append(all.Problems, p.Problems...)
	}
	fmt.Fprintln(o.Streams.ErrOut, "Previewed with your rights; the operator acts as each set's ServiceAccount: "+
		"add --as=system:serviceaccount:NAMESPACE:NAME to preview with its rights")
	return all, nil
}

// previewSet runs the set as the operator would (setrun.Preview), with
// server-side dry-run and the user's rights, and returns what it would do.
// approval is the approval to name the plan for ("" for none): the digest
// the operator would wait with.
func (f Fetch) previewSet(ctx context.Context, o *cli.Options, cl client.Client, c *cli.Clients, set applyv1alpha1.Set,
	approval applyv1alpha1.Approval) (*preview.Preview, setrun.Result, error) {
	gvk := set.GetObjectKind().GroupVersionKind()
	key := applyset.ParentKey{GroupKind: gvk.GroupKind(), Namespace: set.GetNamespace(), Name: set.GetName()}
	run := &setrun.Run{Mode: setrun.Preview, Set: set, Parent: applyset.Parent{Key: key}, Sources: cl, Mapper: c.Mapper,
		Limits: declared.Limits{Bytes: f.MaxInput, Objects: declared.DefaultLimits.Objects}, Approval: approval,
		Engine: &apply.Engine{Client: cl, FieldManager: identity.MembersFieldManager, Discovery: c.Disco}}
	live, _ := set.DeepCopyObject().(client.Object)
	switch err := cl.Get(ctx, client.ObjectKeyFromObject(set), live); {
	case err == nil:
		run.Parent = applyset.ParseParent(key, live.GetLabels(), live.GetAnnotations())
		run.Stored = live.(applyv1alpha1.Set).GetSetStatus()
		if run.Members, err = cli.MembersOf(ctx, cl, live.(applyv1alpha1.Set)); run.Members == nil {
			return nil, setrun.Result{}, err
		}
		set.SetUID(live.GetUID())
	case !apierrors.IsNotFound(err):
		return nil, setrun.Result{}, err
	}
	artifacts, err := f.Hosts.artifacts()
	if err != nil {
		return nil, setrun.Result{}, err
	}
	run.Artifacts = artifacts
	res := run.Do(ctx)
	if res.Warnings == nil {
		return nil, res, stopped(set, res) // the inputs could not be read
	}
	printArtifacts(o, set, res.Gathered)
	for _, w := range *res.Warnings {
		fmt.Fprintf(o.Streams.ErrOut, "Warning: %s\n", w)
	}
	p := &preview.Preview{Declared: map[apply.ObjectRef]apply.Object{}, Changes: res.Applied, Pruned: res.Pruned, Deletes: res.Deletes,
		PruneChecked: res.Listed != nil && res.Err == nil}
	for _, obj := range res.Objects {
		p.Declared[obj.Ref()] = obj
	}
	if res.Err != nil {
		p.Problems = append(p.Problems, stopped(set, res))
	}
	return p, res, nil
}

// stopped says why the operator would stop the set, as the run found.
func stopped(set applyv1alpha1.Set, res setrun.Result) error {
	if !res.Terminal && res.Reason != applyv1alpha1.ReasonEmptySource {
		return res.Err
	}
	return fmt.Errorf("the operator would stop %s/%s (%s): %w", set.GetObjectKind().GroupVersionKind().Kind, set.GetName(), res.Reason, res.Err)
}

// printArtifacts says which artifact each oci and flux source of set read.
func printArtifacts(o *cli.Options, set applyv1alpha1.Set, g declared.Gathered) {
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
}

// ociVersion names the artifact an oci source asks for: by its tag, when
// it has one, as the digest printed beside it says which artifact was read.
func ociVersion(oci *applyv1alpha1.OCISource) string {
	if oci.Tag != "" {
		return oci.URL + ":" + oci.Tag
	}
	return oci.URL
}

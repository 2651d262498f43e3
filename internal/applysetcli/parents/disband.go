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

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

func newDisbandCommand(o *cli.Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "disband PARENT",
		Short: "Dissolve an ApplySet and keep its objects",
		Long: `Remove the applyset.kubernetes.io/part-of label from every member of a set and the
ApplySet labels and annotations from its parent: every object stays as it is, and no tool
will prune it as part of the set again. For the operator's own ApplySets and
ClusterApplySets, it sets deletionPolicy: Orphan and deletes the set; the operator then
releases the members. It shows what it will do and asks first, unless --yes.
--dry-run=server sends every write with server-side dry-run: the API server checks them,
and nothing changes.`,
		Example: `  kubectl applyset disband secret/web -n shop
  kubectl applyset disband applyset/web -n shop --yes
  kubectl applyset disband secret/web -n shop --dry-run=server`,
	}
	return cli.Verb{Sets: cli.AnyParent, Writes: true, YesHelp: "Disband without asking.", Run: cli.AsItGoes(runDisband)}.Bind(o, cmd)
}

// runDisband disbands the set s names: the operator's the operator's way,
// any other by its members' labels and its parent's contract.
func runDisband(ctx context.Context, s *cli.Scope) error {
	if cli.IsOperatorSet(s.Ref) {
		return orphanAndDelete(ctx, s)
	}
	p, v, err := verifyParent(ctx, s.Streams.ErrOut, s.Clients, s.Ref)
	if err != nil {
		return err
	}
	return disband(ctx, s, p, v)
}

func disband(ctx context.Context, s *cli.Scope, p membership.Parent, v membership.Verdict) error {
	name, c, dr := s.Name, s.Clients, s.DryRun
	switch {
	case !v.Parent.Trusted():
		return fmt.Errorf("%s: its ID label is not its own, so the objects that carry that ID are not its members; nothing changed", name)
	case len(v.Incomplete) > 0:
		return fmt.Errorf("%s: not every type could be listed (%s), so some members would keep their label; nothing changed",
			name, text.Summarize(v.Incomplete, 3))
	}
	names := make([]string, 0, len(v.Members))
	kinds, namespaces := sets.New[schema.GroupKind](), sets.New[string]()
	for _, m := range v.Members {
		names = append(names, m.String())
		kinds.Insert(m.GroupKind)
		namespaces.Insert(m.Namespace)
	}
	fmt.Fprintf(s.Streams.Out, "Disbanding %s: the %s label comes off %d members (%s), and the ApplySet labels and "+
		"annotations off the parent; every object stays.\n", name, applyset.PartOfLabel, len(names), text.Summarize(names, 10))
	if err := s.Confirm("Disband?"); err != nil {
		return err
	}
	engine, err := c.Engine(identity.PluginFieldManager)
	if err != nil {
		return err
	}
	// A set without an inventory proves its members by who applied their label.
	appliers := membership.NewAppliers(identity.TrustedAppliers()).Of(v.Parent.Tooling.Name)
	cs, err := engine.Disband(ctx, apply.DisbandOptions{SetID: v.Parent.ID, Kinds: kinds,
		Scope: applyset.Scope{Namespace: p.Ref.Namespace, AdditionalNamespaces: namespaces}, Proven: apply.LabelAppliedBy(appliers), DryRun: dr.Server()})
	if err != nil {
		return fmt.Errorf("%d members released, then: %w", cs.Count(apply.Disbanded), err)
	}
	if err := clearParent(ctx, c, p, dr); err != nil {
		return err
	}
	fmt.Fprintf(s.Streams.Out, "%s disbanded: %d members released%s\n", name, cs.Count(apply.Disbanded), dr.Suffix())
	if n := cs.Count(apply.Foreign); n > 0 {
		fmt.Fprintf(s.Streams.Out, "Left %d objects with the label: no apply of %s wrote it (%s)\n", n, v.Parent.Tooling, foreignNames(cs))
	}
	return nil
}

// clearParent removes the contract's labels and annotations from the parent,
// and nothing else: a Secret or ConfigMap may hold data someone still needs.
func clearParent(ctx context.Context, c *cli.Clients, p membership.Parent, dr *cli.DryRun) error {
	patch := map[string]any{"metadata": map[string]any{
		"resourceVersion": p.Object.ResourceVersion,
		"labels":          map[string]any{applyset.IDLabel: nil},
		"annotations": map[string]any{applyset.ToolingAnnotation: nil, applyset.GroupKindsAnnotation: nil,
			applyset.GroupResourcesAnnotation: nil, applyset.AdditionalNamespacesAnnotation: nil},
	}}
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = c.Dynamic.Resource(p.Ref.Type.Resource).Namespace(p.Ref.Namespace).Patch(ctx, p.Ref.Name, types.MergePatchType, data,
		metav1.PatchOptions{FieldManager: identity.PluginFieldManager, DryRun: dr.Opts()})
	if err != nil {
		return fmt.Errorf("members released; clearing the parent %s: %w", cli.ParentName(p.Ref), err)
	}
	return nil
}

// orphanAndDelete disbands one of the operator's own sets the operator's
// way: it releases the members itself once the set is deleted with
// deletionPolicy Orphan.
func orphanAndDelete(ctx context.Context, s *cli.Scope) error {
	name, c, ref, dr := s.Name, s.Clients, s.Ref, s.DryRun
	fmt.Fprintf(s.Streams.Out, "Disbanding %s: deletionPolicy becomes Orphan and the set is deleted; "+
		"the operator then removes the %s label from its members, which stay.\n", name, applyset.PartOfLabel)
	if err := s.Confirm("Disband?"); err != nil {
		return err
	}
	resource := c.Dynamic.Resource(ref.Type.Resource).Namespace(ref.Namespace)
	patch := fmt.Sprintf(`{"spec":{"deletionPolicy":%q}}`, applyv1alpha1.DeletionPolicyOrphan)
	if _, err := resource.Patch(ctx, ref.Name, types.MergePatchType, []byte(patch),
		metav1.PatchOptions{FieldManager: identity.PluginFieldManager, DryRun: dr.Opts()}); err != nil {
		return fmt.Errorf("setting deletionPolicy: Orphan on %s: %w", name, err)
	}
	if err := resource.Delete(ctx, ref.Name, metav1.DeleteOptions{DryRun: dr.Opts()}); err != nil {
		return fmt.Errorf("deleting %s: %w", name, err)
	}
	if dr.Server() {
		fmt.Fprintf(s.Streams.Out, "%s would be deleted with deletionPolicy Orphan%s\n", name, dr.Suffix())
		return nil
	}
	fmt.Fprintf(s.Streams.Out, "%s deleted with deletionPolicy Orphan; the operator releases its members "+
		"(kubectl wait --for=delete %s%s)\n", name, cli.ParentName(ref), cli.NSFlag(ref.Namespace))
	return nil
}

// foreignNames names the objects a change set left alone as not the set's.
func foreignNames(cs apply.ChangeSet) string {
	var names []string
	for _, c := range cs.Changes {
		if c.Action == apply.Foreign {
			names = append(names, c.Ref.String())
		}
	}
	return text.Summarize(names, 5)
}

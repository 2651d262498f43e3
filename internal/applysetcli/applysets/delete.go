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
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func newDeleteCommand(o *cli.Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete PARENT",
		Short: "Delete one of the operator's sets, after showing what its deletion does to each member",
		Long: `Show what deleting one of the operator's ApplySets or ClusterApplySets does to its
members, as the operator will do it: which it deletes (deletionPolicy: Delete), which it
releases (deletionPolicy: Orphan, or a member another object owns), which it keeps as they
are (a suspended or previewing set keeps all), and which objects carry the set's label
without being its members (left alone). The preview is a server-side dry run made with your
rights; the operator acts as the set's ServiceAccount. Then it deletes the set, after asking,
unless --yes; --dry-run=server stops after the preview.`,
		Example: `  kubectl applyset delete applyset/web -n shop --dry-run=server
  kubectl applyset delete clusterapplyset/platform --yes`,
	}
	return cli.Verb{Sets: cli.OperatorSets, Writes: true, YesHelp: "Delete without asking.", Run: cli.AsItGoes(deleteSet),
		NotOperatorSet: ": its members are deleted by the tool that applied them (kubectl delete), or kept with kubectl applyset disband",
	}.Bind(o, cmd)
}

// deleteSet previews the deletion of the operator's set s names, then
// deletes it, after asking.
func deleteSet(ctx context.Context, s *cli.Scope) error {
	cl, set, err := s.Clients.OperatorSet(ctx, s.Ref)
	if err != nil {
		return err
	}
	if err := previewDeletion(ctx, s.Streams.Out, cl, set, s.Ref.Key(), s.Name); err != nil {
		return err
	}
	fmt.Fprintln(s.Streams.ErrOut, "Previewed with your rights; the operator acts as the set's ServiceAccount")
	if s.DryRun.Server() {
		return cl.Delete(ctx, set, &client.DeleteOptions{DryRun: s.DryRun.Opts()})
	}
	if err := s.Confirm("Delete " + s.Name + "?"); err != nil {
		return err
	}
	if err := cl.Delete(ctx, set); err != nil {
		return fmt.Errorf("deleting %s: %w", s.Name, err)
	}
	fmt.Fprintf(s.Streams.Out, "%s deleted; the operator releases its members (kubectl wait --for=delete %s%s)\n",
		s.Name, cli.ParentName(s.Ref), cli.NSFlag(s.Ref.Namespace))
	return nil
}

// previewDeletion prints what deleting set does to its members: the
// operator's deletion run (setrun.DeletePreview), with server-side dry-run
// and the user's rights.
func previewDeletion(ctx context.Context, w io.Writer, cl client.Client, set applyv1alpha1.Set, key applyset.ParentKey, name string) error {
	recorded, err := cli.MembersOf(ctx, cl, set)
	if recorded == nil {
		return err
	}
	if err != nil {
		fmt.Fprintf(w, "Warning: %v\n", err)
	}
	run := &setrun.Run{Mode: setrun.DeletePreview, Set: set, Stored: set.GetSetStatus(), Members: recorded,
		Parent: applyset.ParseParent(key, set.GetLabels(), set.GetAnnotations()),
		Engine: &apply.Engine{Client: cl, FieldManager: identity.MembersFieldManager}}
	res := run.Do(ctx)
	switch {
	case res.Kept != "":
		fmt.Fprintf(w, "Deleting %s leaves its %d members as they are: %s.\n", name, recorded.Len(), res.Kept)
		return nil
	case res.Err != nil:
		return fmt.Errorf("previewing the deletion of %s: %w", name, res.Err)
	}
	cs := res.Pruned
	fmt.Fprintf(w, "Deleting %s (deletionPolicy %s):\n", name, set.GetCommonSpec().DeletionPolicy)
	released := sets.New[apply.ObjectRef]()
	for _, ch := range cs.Changes {
		if ch.Action == apply.Skipped {
			released.Insert(ch.Ref)
		}
	}
	for _, ch := range cs.Changes {
		switch ch.Action {
		case apply.Pruned:
			fmt.Fprintf(w, "  delete   %s\n", ch.Ref)
		case apply.Disbanded:
			if !released.Has(ch.Ref) { // one the prune kept is said with why, below
				fmt.Fprintf(w, "  release  %s\n", ch.Ref)
			}
			released.Insert(ch.Ref)
		case apply.Skipped:
			fmt.Fprintf(w, "  release  %s: not deleted, %s\n", ch.Ref, ch.Reason)
		case apply.Foreign:
			fmt.Fprintf(w, "  leave    %s: not a member, %s\n", ch.Ref, ch.Reason)
		default:
			fmt.Fprintf(w, "  %-8s %s: %s\n", ch.Action, ch.Ref, ch.Reason)
		}
	}
	fmt.Fprintf(w, "%d to delete, %d to release, %d left alone; nothing was changed\n", cs.Count(apply.Pruned),
		released.Len(), cs.Count(apply.Foreign))
	return nil
}

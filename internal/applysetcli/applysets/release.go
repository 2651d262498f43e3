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
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

func newReleaseFinalizersCommand(o *cli.Options) *cobra.Command {
	var (
		yes bool
		dr  cli.DryRun
	)
	cmd := &cobra.Command{
		Use:   "release-finalizers PARENT",
		Short: "Let a set that is being deleted go without touching its members",
		Long: `Remove the operator's finalizer from one of its sets that is being deleted, so that it
goes at once and every member stays exactly as it is, label and all: for a set stuck
deleting because the operator is gone (uninstalled first, scaled to zero) or cannot release
its members. Nothing else is changed; a set that is not being deleted is refused. It asks
first, unless --yes.`,
		Example:           `  kubectl applyset release-finalizers applyset/web -n shop --yes`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: o.CompleteParent(cli.OperatorSets),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.Clients()
			if err != nil {
				return err
			}
			// The set may never have become a parent: its finalizer is what matters.
			ref, err := cli.ParentOf(c, args[0])
			if err != nil {
				return err
			}
			name := cli.ParentName(ref) + cli.InNamespace(ref.Namespace)
			if !cli.IsOperatorSet(ref) {
				return fmt.Errorf("%s is not one of the operator's sets, which alone carry its finalizer", name)
			}
			cl, err := c.Client()
			if err != nil {
				return err
			}
			set, err := cli.OperatorSetOf(cmd.Context(), cl, ref)
			if err != nil {
				return err
			}
			if set.GetDeletionTimestamp().IsZero() {
				return fmt.Errorf("%s is not being deleted: delete it first (kubectl applyset delete shows what that does)", name)
			}
			base := set.DeepCopyObject().(client.Object)
			if !controllerutil.RemoveFinalizer(set, applyv1alpha1.MembersFinalizer) {
				fmt.Fprintf(o.Streams.Out, "%s carries no finalizer of the operator's\n", name)
				return nil
			}
			question := fmt.Sprintf("Release the finalizer of %s? Its %d members stay as they are",
				name, ptr.Deref(set.GetSetStatus().MemberCount, 0))
			if err := o.Confirm(yes || dr.Server(), question); err != nil {
				return err
			}
			// The resourceVersion makes the patch fail rather than drop a finalizer added meanwhile.
			patch := client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})
			if err := cl.Patch(cmd.Context(), set, patch, &client.PatchOptions{DryRun: dr.Opts()}); err != nil {
				return fmt.Errorf("releasing the finalizer of %s: %w", name, err)
			}
			fmt.Fprintf(o.Streams.Out, "%s released: its %d members stay as they are%s\n", name, ptr.Deref(set.GetSetStatus().MemberCount, 0), dr.Suffix())
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "Release without asking.")
	dr.Add(cmd)
	return cmd
}

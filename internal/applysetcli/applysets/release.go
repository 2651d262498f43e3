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

	"github.com/spf13/cobra"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

func newReleaseFinalizersCommand(o *cli.Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "release-finalizers PARENT",
		Short: "Let a set that is being deleted go without touching its members",
		Long: `Remove the operator's finalizer from one of its sets that is being deleted, so that it
goes at once and every member stays exactly as it is, label and all: for a set stuck
deleting because the operator is gone (uninstalled first, scaled to zero) or cannot release
its members. Nothing else is changed; a set that is not being deleted is refused. It asks
first, unless --yes.`,
		Example: `  kubectl applyset release-finalizers applyset/web -n shop --yes`,
	}
	// The set may never have become a parent: its finalizer is what matters.
	return cli.Verb{Sets: cli.OperatorSets, Unread: true, Writes: true, YesHelp: "Release without asking.", Run: cli.AsItGoes(releaseFinalizer),
		NotOperatorSet: ", which alone carry its finalizer"}.Bind(o, cmd)
}

// releaseFinalizer removes the operator's finalizer from the set s names,
// which is being deleted, after asking.
func releaseFinalizer(ctx context.Context, s *cli.Scope) error {
	cl, set, err := s.Clients.OperatorSet(ctx, s.Ref)
	if err != nil {
		return err
	}
	if set.GetDeletionTimestamp().IsZero() {
		return fmt.Errorf("%s is not being deleted: delete it first (kubectl applyset delete shows what that does)", s.Name)
	}
	base := set.DeepCopyObject().(client.Object)
	if !controllerutil.RemoveFinalizer(set, applyv1alpha1.MembersFinalizer) {
		fmt.Fprintf(s.Streams.Out, "%s carries no finalizer of the operator's\n", s.Name)
		return nil
	}
	members := ptr.Deref(set.GetSetStatus().MemberCount, 0)
	if err := s.Confirm(fmt.Sprintf("Release the finalizer of %s? Its %d members stay as they are", s.Name, members)); err != nil {
		return err
	}
	// The resourceVersion makes the patch fail rather than drop a finalizer added meanwhile.
	patch := client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})
	if err := cl.Patch(ctx, set, patch, &client.PatchOptions{DryRun: s.DryRun.Opts()}); err != nil {
		return fmt.Errorf("releasing the finalizer of %s: %w", s.Name, err)
	}
	fmt.Fprintf(s.Streams.Out, "%s released: its %d members stay as they are%s\n", s.Name, members, s.DryRun.Suffix())
	return nil
}

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
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/membership"
)

type approveOptions struct {
	digest string
	hosts  ArtifactHosts
}

func newApproveCommand(o *cli.Options) *cobra.Command {
	a := &approveOptions{}
	cmd := &cobra.Command{
		Use:   "approve PARENT [--digest sha256:...] [--yes]",
		Short: "Approve the plan one of the operator's sets awaits approval for",
		Long: `approve shows the plan a set under spec.approval Manual or Prune waits with: the
changes as a unified diff, made with server-side dry-run as you, as 'diff' shows them. It
computes the plan's digest from that preview and approves only when it is the digest the set
awaits (status.plan.digest): what you saw is what the operator applies. Then it asks, and
writes the digest into spec.approvedPlan, on the set as you read it.

The preview fetches the set's oci and flux artifacts from here, only from the hosts
--artifact-allowed-hosts names (none by default), as diff does.

--digest approves a digest without the preview, for scripts: it must be the one the set
awaits. Approving needs the verb approve on the set (the ClusterRole
applyset-operator-applyset-approver); --dry-run=server asks the API server whether you
may, its admission policies included, and approves nothing.`,
		Example: `  # See the plan, then approve it
  kubectl applyset approve applyset/web -n shop

  # In a pipeline that reviewed the plan elsewhere
  kubectl applyset approve applyset/web -n shop --digest sha256:0a1b... --yes

  # May I approve it? Nothing is approved
  kubectl applyset approve applyset/web -n shop --dry-run=server`,
	}
	// A set whose first plan awaits approval is no parent yet.
	cli.Verb{Sets: cli.OperatorSets, Unread: true, NotOperatorSet: "; only those await approval",
		Writes: true, YesHelp: "Approve without asking.", Run: cli.AsItGoes(a.run)}.Bind(o, cmd)
	cmd.Flags().StringVar(&a.digest, "digest", "", "Approve this digest, which must be the one the set awaits, without a preview.")
	a.hosts.BindFlags(cmd.Flags())
	return cmd
}

// run shows the plan the set s names awaits, unless --digest names it, and
// approves it after asking.
func (a *approveOptions) run(ctx context.Context, s *cli.Scope) error {
	digest := a.digest
	if digest == "" {
		set, awaited, err := awaitingSet(ctx, s.Clients, s.Ref)
		if err != nil {
			return err
		}
		if err := showPlan(ctx, s.Options, s.Clients, set, s.Ref.Type.GroupKind.Kind, awaited, a.hosts); err != nil {
			return err
		}
		digest = awaited
	}
	if err := s.Confirm(fmt.Sprintf("Approve plan %s of %s?", digest, s.Name)); err != nil {
		return err
	}
	if err := Approve(ctx, s.Clients, s.Ref, digest, s.DryRun.Opts()...); err != nil {
		return err
	}
	fmt.Fprintf(s.Streams.Out, "%s: approved plan %s%s\n", s.Name, digest, s.DryRun.Suffix())
	return nil
}

// Approve approves plan digest of the operator's set ref, as the user of c:
// only when it is the digest the set awaits, and only on the set as read, so
// a plan that changed meanwhile is never approved in its place. dryRun,
// when it is {metav1.DryRunAll}, sends the approval with server-side dry-run.
func Approve(ctx context.Context, c *cli.Clients, ref membership.ParentRef, digest string, dryRun ...string) error {
	name := cli.ParentName(ref) + cli.InNamespace(ref.Namespace)
	set, awaited, err := awaitingSet(ctx, c, ref)
	if err != nil {
		return err
	}
	if digest != awaited {
		return NotAwaitedError{fmt.Errorf("%s awaits approval of %s, not %s: the plan changed; look at it again", name, awaited, digest)}
	}
	cl, err := c.Client()
	if err != nil {
		return err
	}
	base := set.DeepCopyObject().(client.Object)
	set.GetCommonSpec().ApprovedPlan = &awaited
	// The resourceVersion makes the patch fail on a set that changed since it was read.
	opts := []client.PatchOption{}
	if len(dryRun) > 0 {
		opts = append(opts, client.DryRunAll)
	}
	if err := cl.Patch(ctx, set, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), opts...); err != nil {
		return fmt.Errorf("approving %s: %w", name, err)
	}
	return nil
}

// Review is a set's plan previewed as approve shows it.
type Review struct {
	// Awaited is the digest of the plan the set awaits approval of, "" when
	// none awaits: the preview then shows what the operator would do next.
	Awaited string
	// Diff is the preview as a unified diff per object; Notes what else
	// the preview says (conflicts, what is kept, a summary).
	Diff, Notes string
}

// ReviewPlan previews what the operator's set ref would do, as the user of
// c, as approve shows it before it asks: when a plan awaits approval, it
// fails, saying why, unless the preview is that plan.
func ReviewPlan(ctx context.Context, c *cli.Clients, ref membership.ParentRef, hosts ArtifactHosts) (Review, error) {
	_, set, err := c.OperatorSet(ctx, ref)
	if err != nil {
		return Review{}, err
	}
	awaited, _ := awaitedDigest(set) // a set awaiting nothing is previewed all the same
	var diff, notes bytes.Buffer
	o := &cli.Options{Streams: genericiooptions.IOStreams{Out: &diff, ErrOut: &notes}}
	err = showPlan(ctx, o, c, set, ref.Type.GroupKind.Kind, awaited, hosts)
	return Review{Awaited: awaited, Diff: diff.String(), Notes: notes.String()}, err
}

// awaitingSet reads the operator's set ref and the digest of the plan it awaits.
func awaitingSet(ctx context.Context, c *cli.Clients, ref membership.ParentRef) (applyv1alpha1.Set, string, error) {
	name := cli.ParentName(ref) + cli.InNamespace(ref.Namespace)
	if !cli.IsOperatorSet(ref) {
		return nil, "", cli.NotOperatorSetError{Name: name, Instead: "; only those await approval"}
	}
	_, set, err := c.OperatorSet(ctx, ref)
	if err != nil {
		return nil, "", err
	}
	awaited, err := awaitedDigest(set)
	if err != nil {
		return nil, "", NotAwaitedError{fmt.Errorf("%s: %w", name, err)}
	}
	return set, awaited, nil
}

// NotAwaitedError refuses to approve a plan the set does not await: none
// awaits, or another one does.
type NotAwaitedError struct{ error }

func (e NotAwaitedError) Unwrap() error { return e.error }

// awaitedDigest is the digest of the plan the set waits with.
func awaitedDigest(set applyv1alpha1.Set) (string, error) {
	status := set.GetSetStatus()
	ready := apimeta.FindStatusCondition(status.Conditions, applyv1alpha1.ConditionReady)
	if ready == nil || ready.Reason != applyv1alpha1.ReasonAwaitingApproval || status.Plan == nil || status.Plan.Digest == "" {
		return "", errors.New("no plan awaits approval")
	}
	if ready.ObservedGeneration != set.GetGeneration() {
		return "", errors.New("the operator has not planned the set's latest spec yet; try again in a moment")
	}
	return status.Plan.Digest, nil
}

// showPlan previews the set as diff does, prints it, and checks that the
// preview is the plan awaiting approval, awaited, if one awaits.
func showPlan(ctx context.Context, o *cli.Options, c *cli.Clients, set applyv1alpha1.Set, kind, awaited string, hosts ArtifactHosts) error {
	if !set.GetDeletionTimestamp().IsZero() {
		return errors.New("the set is being deleted: its plan (status.plan.prune) lists what the deletion deletes; " +
			"approve it with --digest status.plan.digest, or set spec.deletionPolicy to Orphan to keep the members")
	}
	cl, err := c.Client()
	if err != nil {
		return err
	}
	f := Fetch{MaxInput: cli.DefaultMaxInput, Hosts: hosts}
	previewed := set.DeepCopyObject().(applyv1alpha1.Set)
	// A typed read leaves the kind out, and the set's ID is made of it.
	previewed.GetObjectKind().SetGroupVersionKind(applyv1alpha1.GroupVersion.WithKind(kind))
	approval := applyv1alpha1.Approval("")
	if awaited != "" {
		approval = approvalOf(set)
	}
	p, res, err := f.previewSet(ctx, o, cl, c, previewed, approval)
	if err != nil {
		return err
	}
	if err := p.ReadPruned(ctx, c); err != nil {
		return err
	}
	if err := cli.Show(o.Streams, nil, p); err != nil && cli.ExitCode(err) != cli.ExitFindings {
		return err
	}
	if len(p.Problems) > 0 {
		return fmt.Errorf("the preview ran into problems, so it cannot show the plan: %w", errors.Join(p.Problems...))
	}
	if awaited == "" {
		return nil
	}
	seen := ""
	if res.Approval != nil {
		seen = res.Approval.Digest
	}
	if seen != awaited {
		return fmt.Errorf("the preview here is plan %s, not the plan awaiting approval (%s): the set or the cluster changed since "+
			"the operator planned it, or your rights show you less than its ServiceAccount sees; run approve again, "+
			"or review status.plan and approve with --digest", seen, awaited)
	}
	fmt.Fprintf(o.Streams.ErrOut, "The preview above is plan %s, the one awaiting approval\n", seen)
	return nil
}

// approvalOf is the approval a set awaiting one is held to: Prune when its
// spec says so, else Manual (its own, or its namespace's rule).
func approvalOf(set applyv1alpha1.Set) applyv1alpha1.Approval {
	if set.GetCommonSpec().ApprovalMode() == applyv1alpha1.ApprovalPrune {
		return applyv1alpha1.ApprovalPrune
	}
	return applyv1alpha1.ApprovalManual
}

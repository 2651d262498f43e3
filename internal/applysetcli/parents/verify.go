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
	"io"

	"github.com/spf13/cobra"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// Exit statuses of verify, for CI jobs.
type verifyFlags struct {
	scopeFlags
	output *cli.Output
	fix    bool
	yes    bool
	dr     cli.DryRun
}

func newVerifyCommand(o *cli.Options) *cobra.Command {
	flags := verifyFlags{output: cli.NewOutput()}
	cmd := &cobra.Command{
		Use:   "verify [PARENT]",
		Short: "Check ApplySets as the operator does; --fix rewrites stale hints",
		Long: `Check one parent, or every parent of the namespace (all with -A), as the operator's
parent reconciler does: its ID is its own, its tooling and hints are well formed, the hint
names the kinds of all its members, every member lies in its namespaces and no other object
owns one. Exits 0 when there are no findings, 1 with findings, 2 on an error. Each parent
ends with a line that also gives its members' health as kstatus judges it (52/59 ready);
health is reported, not judged: members still rolling out do not make verify fail.

--fix rewrites the contains-group-kinds and additional-namespaces hints of the parents it
checked to exactly the kinds and namespaces of their members, under the field manager the
parent's tool writes it with (kubectl's: kubectl-applyset), so the tool's next apply goes on
from there. Only members whose part-of label the tool itself applied count; a parent whose
ID is not its own, whose members could not all be listed, or that the operator manages is
never rewritten. It shows the change and asks first, unless --yes; with --dry-run=server
the rewrite is sent with server-side dry-run and nothing changes. Its exit status is that of
the findings the fix leaves, checked again after the rewrite: 0 when it fixed them all.`,
		Example: `  # In a CI job: fail when any set of the cluster has a problem
  kubectl applyset verify -A

  # Repair the hint of one set kubectl wrote, after a look at the change
  kubectl applyset verify secret/web -n shop --fix`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: o.CompleteParent(cli.AnyParent),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd, o, &flags, args)
		},
	}
	flags.add(cmd)
	flags.output.AddFlags(cmd)
	cmd.Flags().BoolVar(&flags.fix, "fix", false, "Rewrite the hints of the parents checked to what their members need.")
	cmd.Flags().BoolVarP(&flags.yes, "yes", "y", false, "With --fix, write without asking.")
	flags.dr.Add(cmd)
	return cmd
}

func runVerify(cmd *cobra.Command, o *cli.Options, flags *verifyFlags, args []string) error {
	c, err := o.Clients()
	if err != nil {
		return err
	}
	sopts, err := flags.snapshotOptions(c)
	if err != nil {
		return err
	}
	var only *membership.ParentRef
	if len(args) == 1 {
		ref, err := cli.ResolveParent(cmd.Context(), c, args[0])
		if err != nil {
			return err
		}
		only, sopts.Namespace = &ref, ref.Namespace
	}
	snap, err := snapshot(cmd, o, c, sopts)
	if err != nil {
		return err
	}
	checked := checkParents(c, &flags.scopeFlags, snap, only)
	if flags.fix {
		// Under -o standard output is the document alone, which a
		// program parses: what the fix does goes to standard error.
		progress := o.Streams.Out
		if flags.output.Printed() {
			progress = o.Streams.ErrOut
		}
		wrote, err := fixHints(cmd, o, c, progress, flags.yes, &flags.dr, checked)
		if err != nil {
			return err
		}
		// The status is that of the findings the fix left: checked again
		// after a rewrite, all of them when nothing was written.
		if wrote {
			if snap, err = snapshot(cmd, o, c, sopts); err != nil {
				return err
			}
			checked = checkParents(c, &flags.scopeFlags, snap, only)
		}
	}
	return report(cmd.Context(), o.Streams.Out, c, checked, flags.output)
}

// checkedParent is a parent and its verdict.
type checkedParent struct {
	membership.Parent
	verdict membership.Verdict
}

// checkParents verifies the parents in the flags' scope, or only the one
// named.
func checkParents(c *cli.Clients, flags *scopeFlags, snap *membership.Snapshot, only *membership.ParentRef) []checkedParent {
	var out []checkedParent
	for _, p := range snap.Parents {
		if only != nil && p.Ref.Key() != only.Key() || only == nil && !flags.inScope(c, p) {
			continue
		}
		out = append(out, checkedParent{Parent: p, verdict: snap.Verify(p, membership.NewAppliers(identity.TrustedAppliers()))})
	}
	return out
}

// report prints the findings and the members' health, and ends with status
// 1 when there are findings.
func report(ctx context.Context, w io.Writer, c *cli.Clients, checked []checkedParent, output *cli.Output) error {
	items := summarizeWithHealth(ctx, c, checked)
	clean := true
	for _, s := range items {
		clean = clean && s.clean()
	}
	if output.Printed() {
		if err := output.PrintList(w, items); err != nil {
			return err
		}
	} else {
		for _, s := range items {
			for _, f := range s.Findings {
				fmt.Fprintf(w, "%s%s: %s: %s\n", s.Parent, cli.InNamespace(s.Namespace), f.Reason, f.Message)
			}
			fmt.Fprintf(w, "%s%s: %s, %d members, health %s\n", s.Parent, cli.InNamespace(s.Namespace),
				countFindings(len(s.Findings)), s.Members, s.Health)
		}
	}
	if !clean {
		return cli.Findings()
	}
	return nil
}

func countFindings(n int) string {
	switch n {
	case 0:
		return "no findings"
	case 1:
		return "1 finding"
	}
	return fmt.Sprintf("%d findings", n)
}

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

func newVerifyCommand(o *cli.Options) *cobra.Command {
	output, fix := cli.NewOutput(), false
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
	}
	cli.Survey{One: true, Writes: true, YesHelp: "With --fix, write without asking.", Output: output,
		Run: func(ctx context.Context, s *cli.Surveyed) (cli.Result, error) {
			// Under -o standard output is the document alone, which a
			// program parses: what the fix does goes to standard error.
			progress := s.Streams.Out
			if output.Printed() {
				progress = s.Streams.ErrOut
			}
			return verify(ctx, s, fix, progress)
		}}.Bind(o, cmd)
	cmd.Flags().BoolVar(&fix, "fix", false, "Rewrite the hints of the parents checked to what their members need.")
	return cmd
}

// verify checks the parents s looks at as the operator's parent reconciler
// does, and their members' health. With fix, it first rewrites the hints
// they need, saying what it does on progress, and checks them again after.
func verify(ctx context.Context, s *cli.Surveyed, fix bool, progress io.Writer) (verified, error) {
	snap, err := readSnapshot(ctx, s.Streams.ErrOut, s.Clients, s.Snapshot)
	if err != nil {
		return nil, err
	}
	checked := checkParents(snap, s.Includes)
	if fix {
		wrote, err := fixHints(ctx, s, progress, checked)
		if err != nil {
			return nil, err
		}
		// The status is that of the findings the fix left: checked again
		// after a rewrite, all of them when nothing was written.
		if wrote {
			if snap, err = readSnapshot(ctx, s.Streams.ErrOut, s.Clients, s.Snapshot); err != nil {
				return nil, err
			}
			checked = checkParents(snap, s.Includes)
		}
	}
	return summarizeWithHealth(ctx, s.Clients, checked), nil
}

// checkedParent is a parent and its verdict.
type checkedParent struct {
	membership.Parent
	verdict membership.Verdict
}

// checkParents verifies the parents of snap that includes takes.
func checkParents(snap *membership.Snapshot, includes func(membership.Parent) bool) []checkedParent {
	var out []checkedParent
	for _, p := range snap.Parents {
		if includes(p) {
			out = append(out, checkedParent{Parent: p, verdict: snap.Verify(p, membership.NewAppliers(identity.TrustedAppliers()))})
		}
	}
	return out
}

// verified is what verify found: each parent checked, with its findings
// and its members' health. It is a Check: findings end verify with ExitFindings.
type verified []Summary

// Items are the parents, as -o prints them.
func (v verified) Items() any { return []Summary(v) }

// Found reports whether any parent has findings.
func (v verified) Found() bool {
	for _, s := range v {
		if !s.clean() {
			return true
		}
	}
	return false
}

// Text prints each parent's findings, and a line with its members' health.
func (v verified) Text(w io.Writer) error {
	for _, s := range v {
		for _, f := range s.Findings {
			fmt.Fprintf(w, "%s%s: %s: %s\n", s.Parent, cli.InNamespace(s.Namespace), f.Reason, f.Message)
		}
		fmt.Fprintf(w, "%s%s: %s, %d members, health %s\n", s.Parent, cli.InNamespace(s.Namespace),
			countFindings(len(s.Findings)), s.Members, s.Health)
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

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
	"k8s.io/apimachinery/pkg/labels"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// scopeFlags choose the parents a verb looks at, as kubectl get does.
type scopeFlags struct {
	allNamespaces bool
	selector      string
}

func (f *scopeFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "Look at the parents of every namespace, and the cluster-scoped ones.")
	cmd.Flags().StringVarP(&f.selector, "selector", "l", "", "Only parents whose labels match this selector (e.g. team=web).")
}

// snapshotOptions reads the parents of the namespace in use (and the
// cluster-scoped ones), or of all namespaces with -A.
func (f *scopeFlags) snapshotOptions(c *cli.Clients) (membership.SnapshotOptions, error) {
	if _, err := labels.Parse(f.selector); err != nil {
		return membership.SnapshotOptions{}, fmt.Errorf("--selector: %w", err)
	}
	sopts := membership.SnapshotOptions{ParentSelector: f.selector}
	if !f.allNamespaces {
		sopts.Namespace = c.Namespace
	}
	return sopts, nil
}

// inScope reports whether a parent of the snapshot is one the flags chose:
// its namespace, or cluster-scoped (a namespace's view includes those, as the
// parents that may own members there).
func (f *scopeFlags) inScope(c *cli.Clients, p membership.Parent) bool {
	return f.allNamespaces || p.Ref.Namespace == "" || p.Ref.Namespace == c.Namespace
}

// Scope chooses the parents List reads, as list's -A and -l do.
type Scope struct {
	AllNamespaces bool
	Selector      string
}

// List is what list shows: every parent in scope with its findings and its
// members' health, read as the user of c. Warnings about types that cannot
// be listed go to errOut.
func List(ctx context.Context, errOut io.Writer, c *cli.Clients, scope Scope) ([]Summary, error) {
	flags := scopeFlags{allNamespaces: scope.AllNamespaces, selector: scope.Selector}
	sopts, err := flags.snapshotOptions(c)
	if err != nil {
		return nil, err
	}
	snap, err := readSnapshot(ctx, errOut, c, sopts)
	if err != nil {
		return nil, err
	}
	return summarizeWithHealth(ctx, c, checkParents(c, &flags, snap, nil)), nil
}

func newListCommand(o *cli.Options) *cobra.Command {
	var flags scopeFlags
	output := cli.NewOutput("wide", "name").WithColumns()
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List ApplySet parents: tooling, members, findings, health",
		Long: `List every ApplySet parent of a namespace (or of all, with -A), whatever tool wrote it:
its tooling, how many objects claim it, what verification found wrong with the ApplySet
contract (FINDINGS: its ID, tooling, hints, scope, who owns its members), and how its
members work as kstatus judges them (HEALTH: 52/59 ready while Deployments roll out).
The two are separate: a set can have no findings and members not ready yet.`,
		Example: `  # The sets of the current namespace, and the cluster-scoped ones
  kubectl applyset list

  # Every set in the cluster, with IDs, kinds and the findings' messages
  kubectl applyset list -A -o wide

  # As JSON, for scripts
  kubectl applyset list -A -o json

  # The names and health of the sets, as kubectl get prints custom columns
  kubectl applyset list -A -o custom-columns=PARENT:.parent,HEALTH:.health`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.Clients()
			if err != nil {
				return err
			}
			items, err := List(cmd.Context(), o.Streams.ErrOut, c, Scope{AllNamespaces: flags.allNamespaces, Selector: flags.selector})
			if err != nil {
				return err
			}
			if len(items) == 0 && output.Format == "" && !output.Printed() {
				fmt.Fprintln(o.Streams.ErrOut, "No ApplySets found.")
				return nil
			}
			return printSummaries(o.Streams.Out, items, output, flags.allNamespaces)
		},
	}
	flags.add(cmd)
	output.AddFlags(cmd)
	return cmd
}

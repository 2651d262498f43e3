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
	"io"

	"github.com/spf13/cobra"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// List is what list shows: every parent within with its findings and its
// members' health, read as the user of c. Warnings about types that cannot
// be listed go to errOut.
func List(ctx context.Context, errOut io.Writer, c *cli.Clients, within cli.Within) ([]Summary, error) {
	sopts, err := within.SnapshotOptions(c)
	if err != nil {
		return nil, err
	}
	snap, err := readSnapshot(ctx, errOut, c, sopts)
	if err != nil {
		return nil, err
	}
	return summarizeWithHealth(ctx, c, checkParents(snap, func(p membership.Parent) bool { return within.Includes(c, p) })), nil
}

func newListCommand(o *cli.Options) *cobra.Command {
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
	}
	return cli.Survey{Output: output, Run: func(ctx context.Context, s *cli.Surveyed) (cli.Result, error) {
		items, err := List(ctx, s.Streams.ErrOut, s.Clients, s.Within)
		return listed{summaries: items, allNamespaces: s.Within.AllNamespaces}, err
	}}.Bind(o, cmd)
}

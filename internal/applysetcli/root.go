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

// Package applysetcli is `kubectl applyset`: the commands KEP-3659 proposes
// for every ApplySet in a cluster, whatever tool wrote it, over the same
// contract and checks the operator uses. The verbs are grouped by audience:
// parents holds those for any KEP-3659 parent, applysets those for the
// operator's own sets, adopt the adoption of another tool's record, ui a web
// page of what list and view show, all over what cli shares. diff, whose two forms serve the two audiences, is made
// here.
package applysetcli

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/adopt"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/applysets"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/parents"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/ui"
	"github.com/applyset-operator/applyset-operator/internal/version"
)

// NewCommand returns `kubectl applyset` with its verbs.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	cmd, o := cli.NewRoot(streams)
	cmd.AddCommand(parents.Commands(o)...)
	cmd.AddCommand(applysets.Commands(o)...)
	cmd.AddCommand(newDiffCommand(o), adopt.NewCommand(o), ui.NewCommand(o), version.Command("applyset", streams.Out))
	addVersionFlag(cmd)
	return cmd
}

// addVersionFlag adds --version, which prints the version line and exits; it
// has no -v, kubectl's verbosity.
func addVersionFlag(cmd *cobra.Command) {
	cmd.Flags().Bool("version", false, "Print the plugin's version and exit.")
	cmd.Version = version.String()
	cmd.SetVersionTemplate(version.Line("kubectl-applyset"))
}

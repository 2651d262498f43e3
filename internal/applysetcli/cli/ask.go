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

package cli

import "github.com/spf13/cobra"

// Ask is the question before a write, and the way past it, the same on
// every verb that writes: --yes (-y), and, for a verb that writes to the
// API server, --dry-run=server, which writes nothing and so asks nothing.
type Ask struct {
	o *Options
	// DryRun is --dry-run; none for a verb without it, which never sends a
	// dry run.
	DryRun *DryRun
	yes    bool
}

// AddAsk adds --yes, with yesHelp, to cmd, and --dry-run for a verb that
// writes to the API server.
func (o *Options) AddAsk(cmd *cobra.Command, yesHelp string, dryRun bool) *Ask {
	a := &Ask{o: o, DryRun: &DryRun{}}
	cmd.Flags().BoolVarP(&a.yes, "yes", "y", false, yesHelp)
	if dryRun {
		a.DryRun.Add(cmd)
	}
	return a
}

// Confirm asks question before a write, unless --yes or --dry-run=server,
// as Options.Confirm does.
func (a *Ask) Confirm(question string) error {
	return a.o.Confirm(a.yes || a.DryRun.Server(), question)
}

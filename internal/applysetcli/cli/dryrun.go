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

import (
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DryRun is kubectl's --dry-run for the verbs that write: none, or server
// (every write is sent with dryRun=All, so admission and validation answer
// as for a real one, and nothing changes). client is refused: a preview the
// API server did not see is not an honest one.
type DryRun struct{ value string }

// Add registers the flag on cmd.
func (d *DryRun) Add(cmd *cobra.Command) {
	d.value = "none"
	cmd.Flags().Var(d, "dry-run", `"server" sends every write with server-side dry-run and changes nothing; "none" writes.`)
}

// Set checks the value as the flag is parsed, so a wrong one is a usage
// error, found before any request.
func (d *DryRun) Set(value string) error {
	switch value {
	case "none", "server":
		d.value = value
		return nil
	case "client":
		return fmt.Errorf("client is not supported: use --dry-run=server, which the API server answers")
	}
	return fmt.Errorf("want none or server")
}

func (d *DryRun) String() string { return d.value }

// Type names the flag's values in --help.
func (d *DryRun) Type() string { return "string" }

// Server reports whether writes are sent with server-side dry-run.
func (d *DryRun) Server() bool { return d.value == "server" }

// Opts are the dryRun field of a write's options.
func (d *DryRun) Opts() []string {
	if d.Server() {
		return []string{metav1.DryRunAll}
	}
	return nil
}

// Suffix marks output written under --dry-run=server.
func (d *DryRun) Suffix() string {
	if d.Server() {
		return " (server dry run)"
	}
	return ""
}

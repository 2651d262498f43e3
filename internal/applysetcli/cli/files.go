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
	"context"

	"github.com/spf13/cobra"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// Files is the scaffold of the verbs that check manifests (diff, validate):
// it owns -f, -R and --max-input-size, connects first for a verb that reads
// the cluster, reads the manifests, and prints Run's Result as Verb does: a
// Check that found something ends with ExitFindings.
type Files struct {
	// MaxInputHelp is the help of --max-input-size.
	MaxInputHelp string
	// Connects connects before the manifests are read, for a verb that
	// reads the cluster: without a cluster, standard input is left unread.
	Connects bool
	// Output is the verb's -o, which prints Run's Result; nil for none.
	Output *Output
	// Run checks the manifests read.
	Run func(ctx context.Context, f *Read) (Result, error)
}

// Read is what a Files' Run works on.
type Read struct {
	*Options
	// Clients are nil for a verb that does not connect.
	Clients *Clients
	Inputs  []apply.Input
	// MaxInput is --max-input-size, which bounds what else the verb reads.
	MaxInput  int64
	files     []string
	recursive bool
}

// Bind makes cmd run the verb on the manifests -f names, and returns it.
func (v Files) Bind(o *Options, cmd *cobra.Command) *cobra.Command {
	f := &Read{Options: o}
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := f.read(v.Connects); err != nil {
			return err
		}
		r, err := v.Run(cmd.Context(), f)
		if err != nil || r == nil {
			return err
		}
		return Show(o.Streams, v.Output, r)
	}
	cmd.Flags().StringSliceVarP(&f.files, "filename", "f", nil, "Files or directories of manifests, or - for standard input.")
	cmd.Flags().BoolVarP(&f.recursive, "recursive", "R", false, "Read the directories of -f recursively.")
	if v.Output != nil {
		v.Output.AddFlags(cmd)
	}
	cmd.Flags().Int64Var(&f.MaxInput, "max-input-size", DefaultMaxInput, v.MaxInputHelp)
	_ = cmd.MarkFlagRequired("filename")
	return cmd
}

func (f *Read) read(connect bool) error {
	if connect {
		c, err := f.Options.Clients()
		if err != nil {
			return err
		}
		f.Clients = c
	}
	inputs, err := readManifests(f.files, f.recursive, f.Streams.In, f.MaxInput)
	f.Inputs = inputs
	return err
}

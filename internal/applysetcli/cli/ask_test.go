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
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestAskWaysPast: --yes and --dry-run=server go past the question; without
// either and without a terminal to ask on, the write is refused; a verb
// that does not write to the API server has no --dry-run.
func TestAskWaysPast(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dryRun  bool
		args    []string
		refused bool
	}{
		{"--yes", true, []string{"--yes"}, false},
		{"-y", false, []string{"-y"}, false},
		{"--dry-run=server", true, []string{"--dry-run=server"}, false},
		{"--dry-run=none", true, []string{"--dry-run=none"}, true},
		{"neither", true, nil, true},
		{"no --dry-run on a verb without one", false, []string{"--dry-run=server"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{Streams: genericiooptions.IOStreams{In: strings.NewReader("y\n"), Out: &strings.Builder{}, ErrOut: &strings.Builder{}}}
			cmd := &cobra.Command{Use: "write"}
			ask := o.AddAsk(cmd, "Write without asking.", tc.dryRun)
			err := cmd.ParseFlags(tc.args)
			if err == nil {
				err = ask.Confirm("Write?")
			}
			if refused := err != nil; refused != tc.refused {
				t.Errorf("error %v, want refused: %v", err, tc.refused)
			}
		})
	}
}

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

package applysetcli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// execute runs `kubectl applyset args...` as the plugin's main does and
// returns its exit status and what it wrote to standard error.
func execute(t *testing.T, in *bytes.Buffer, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewCommand(genericiooptions.IOStreams{In: in, Out: &out, ErrOut: &errOut})
	cmd.SetArgs(args)
	return cli.Execute(context.Background(), cmd), errOut.String()
}

// TestUsageErrorsExit2 runs every verb with a command line it cannot run: a
// usage error is exit status 2, never 1 (a finding, to a CI job), and comes
// before any request.
func TestUsageErrorsExit2(t *testing.T) {
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		http.Error(w, "no request was expected", http.StatusTeapot)
	}))
	t.Cleanup(server.Close)
	connect := []string{"--server=" + server.URL, "--kubeconfig=/dev/null"}
	type usage struct{ name, args, stderr string }
	var cases []usage
	for _, verb := range NewCommand(genericiooptions.NewTestIOStreamsDiscard()).Commands() {
		name := verb.Name()
		cases = append(cases, usage{name + " with an unknown flag", name + " --no-such-flag", "unknown flag: --no-such-flag"})
		if verb.Args != nil && verb.Args(verb, nil) != nil {
			cases = append(cases, usage{name + " without its argument", name, "arg"})
		}
		if verb.Args != nil && verb.Args(verb, []string{"a", "b", "c"}) != nil {
			// cobra.NoArgs calls an extra argument an unknown command.
			cases = append(cases, usage{name + " with an argument too many", name + " a b c", ""})
		}
	}
	cases = append(cases,
		usage{"an unknown verb", "verfiy", `unknown command "verfiy" for "kubectl applyset"; did you mean verify?`},
		usage{"diff without -f", "diff --applyset=web", `required flag(s) "filename" not set`},
		usage{"validate without -f", "validate", `required flag(s) "filename" not set`},
		usage{"push without --tag", "push dir oci://example.com/app", `required flag(s) "tag" not set`},
		usage{"a flag value of the wrong type", "list --all-namespaces=maybe", "invalid argument"},
		usage{"a --dry-run it does not know", "disband secret/web --dry-run=client", "--dry-run"},
	)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := execute(t, &bytes.Buffer{}, append(strings.Fields(tt.args), connect...)...)
			if code != cli.ExitFailure {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, cli.ExitFailure, stderr)
			}
			verb := strings.Fields(tt.args)[0]
			help := "See 'kubectl applyset " + verb + " --help' for usage."
			if tt.name == "an unknown verb" {
				help = "See 'kubectl applyset --help' for usage."
			}
			if !strings.Contains(stderr, tt.stderr) || !strings.Contains(stderr, help) {
				t.Errorf("want %q and %q in stderr:\n%s", tt.stderr, help, stderr)
			}
			if n := requests.Load(); n > 0 {
				t.Errorf("%d requests made before the usage error", n)
			}
		})
	}
}

// TestHelpExits0 keeps asking for help a success, the root's included.
func TestHelpExits0(t *testing.T) {
	for _, args := range [][]string{nil, {"--help"}, {"verify", "--help"}, {"help", "diff"}} {
		if code, stderr := execute(t, &bytes.Buffer{}, args...); code != 0 {
			t.Errorf("kubectl applyset %v: exit status %d; stderr:\n%s", args, code, stderr)
		}
	}
}

// TestEveryWriterTakesYes keeps the way past the question the same on every
// verb that asks before it writes.
func TestEveryWriterTakesYes(t *testing.T) {
	writers := map[string]bool{"adopt": true, "approve": true, "delete": true, "disband": true, "push": true, "release-finalizers": true, "ui": true, "verify": true}
	for _, verb := range NewCommand(genericiooptions.NewTestIOStreamsDiscard()).Commands() {
		yes := verb.Flags().Lookup("yes")
		switch {
		case yes == nil && writers[verb.Name()]:
			t.Errorf("%s writes without a --yes", verb.Name())
		case yes != nil && yes.Shorthand != "y":
			t.Errorf("%s has --yes without -y", verb.Name())
		}
	}
}

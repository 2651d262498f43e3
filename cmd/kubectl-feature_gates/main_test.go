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

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// The plugin takes kubectl's connection flags, as kubectl applyset does.
func TestTakesKubectlConnectionFlags(t *testing.T) {
	cmd := newCommand(genericiooptions.NewTestIOStreamsDiscard())
	for _, name := range []string{"kubeconfig", "context", "cluster", "user", "as", "as-group", "namespace", "server", "token",
		"certificate-authority", "insecure-skip-tls-verify", "request-timeout"} {
		if cmd.PersistentFlags().Lookup(name) == nil {
			t.Errorf("no --%s", name)
		}
	}
}

// What the command line gets wrong is said before any request: the server
// named here does not answer.
func TestRefusesBeforeAnyRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an unknown output format", []string{"--server=https://127.0.0.1:1", "-o", "table"}, `unknown output format "table"`},
		{"two CRDs", []string{"--server=https://127.0.0.1:1", "a.example.com", "b.example.com"}, "accepts at most 1 arg(s)"},
		{"render without a file", []string{"render"}, `required flag(s) "filename" not set`},
		{"render with an argument", []string{"render", "-f", "x.yaml", "extra"}, `unknown command "extra"`},
		{"an unknown flag", []string{"--colour"}, "unknown flag: --colour"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
			cmd.SetArgs(tc.args)
			err := cmd.ExecuteContext(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one saying %q", err, tc.want)
			}
		})
	}
}

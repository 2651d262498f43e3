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
	"slices"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// TestCompletion asks for completions as kubectl_complete-applyset does
// (kubectl-applyset __complete WORDS... TO-COMPLETE) against an API server:
// verbs, flags and -o values, and the sets of the namespace -n names, read
// from the cluster: any parent for the verbs of any set, the operator's sets
// for theirs, those not applied yet included.
func TestCompletion(t *testing.T) {
	e := startShop(t)
	e.kubectl(t, "", "create", "namespace", "other")
	e.kubectl(t, shopManifests, "apply", "--server-side", "--prune", "--applyset=configmap/elsewhere", "-n", "other", "-f", "-")
	e.kubectl(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: k}}\n", "apply", "--server-side", "--prune", "--applyset=configmap/api", "-n", "shop", "-f", "-")
	e.kubectl(t, "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: gated, namespace: shop}, "+
		"spec: {resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}]}}\n", "apply", "-f", "-")
	e.kubectl(t, "", "create", "secret", "generic", "plain", "-n", "shop")

	for _, tc := range []struct {
		name  string
		words []string
		want  []string
		// exact: nothing else is offered; otherwise want is among what is.
		exact bool
	}{
		{"verbs", []string{""}, []string{"approve", "delete", "diff", "disband", "list", "view", "verify"}, false},
		{"flags", []string{"disband", "--"}, []string{"--yes", "--dry-run", "--context"}, false},
		{"-o values", []string{"list", "-o", ""}, []string{"wide", "json", "yaml", "jsonpath=", "custom-columns="}, false},
		{"view: the parents of the namespace", []string{"view", ""}, []string{"configmap/api", "secret/web"}, true},
		{"view: by prefix", []string{"view", "sec"}, []string{"secret/web"}, true},
		{"verify: another namespace", []string{"verify", "-n", "other", ""}, []string{"configmap/elsewhere"}, true},
		{"approve: the operator's sets", []string{"approve", ""}, []string{"applyset/gated"}, true},
		{"diff --applyset", []string{"diff", "--applyset", ""}, []string{"configmap/api", "secret/web"}, true},
		{"view: one argument only", []string{"view", "secret/web", ""}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := e.complete(t, tc.words...)
			if tc.exact && !slices.Equal(got, tc.want) {
				t.Errorf("completes to %q, want %q", got, tc.want)
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q is not offered: %q", w, got)
				}
			}
		})
	}
}

// complete returns the completions the plugin offers for words, the last
// being completed, as kubectl's completion reads them: a line each, without
// descriptions, before the directive.
func (e *exitEnv) complete(t *testing.T, words ...string) []string {
	t.Helper()
	// -n goes before the words: the last is the one being completed.
	args := append([]string{"__complete", "--kubeconfig", e.env.Kubeconfig}, words...)
	if !slices.Contains(words, "-n") {
		args = append([]string{"__complete", "--kubeconfig", e.env.Kubeconfig, "-n", "shop"}, words...)
	}
	var out strings.Builder
	cmd := NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
	cmd.SetArgs(args)
	if code := cli.Execute(t.Context(), cmd); code != 0 {
		t.Fatalf("exit status %d: %s", code, out.String())
	}
	var got []string
	for line := range strings.Lines(out.String()) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, ":") || strings.HasPrefix(line, "Completion ended") {
			break
		}
		name, _, _ := strings.Cut(line, "\t")
		got = append(got, name)
	}
	return got
}

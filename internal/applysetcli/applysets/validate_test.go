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

package applysets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

func TestValidateCommand(t *testing.T) {
	const valid = "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: good, namespace: shop}, spec: {}}\n"
	const invalid = "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: bad, namespace: shop}, " +
		"spec: {resources: [{kind: ConfigMap, metadata: {name: a}}]}}\n"
	const outside = "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: far, namespace: shop}, " +
		"spec: {resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: elsewhere}}]}}\n"
	const other = "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n"
	tests := []struct {
		name       string
		files      map[string]string
		args       []string
		stdin      string
		code       int
		want       []string
		wantStderr string
	}{
		{name: "valid; other kinds skipped", files: map[string]string{"a.yaml": valid + "---\n" + other}, code: 0,
			want: []string{"a.yaml document 1: ApplySet/good: valid"}, wantStderr: "1 object of other kinds not checked"},
		{name: "the API server's field path and message", files: map[string]string{"a.yaml": valid + "---\n" + invalid}, code: cli.ExitFindings,
			want: []string{"a.yaml document 2: ApplySet/bad: spec.resources[0].apiVersion: Required value"}},
		{name: "the namespace-scope policy", stdin: outside, args: []string{"-f", "-"}, code: cli.ExitFindings,
			want: []string{"standard input document 1: ApplySet/far: ValidatingAdmissionPolicy 'applyset-namespace-scope'",
				"ConfigMap elsewhere/a lie outside the ApplySet's namespaces (shop)"}},
		{name: "unknown fields as kubectl's strict validation refuses them", files: map[string]string{"a.yaml": "{apiVersion: apply.applyset.dev/v1alpha1, " +
			"kind: ApplySet, metadata: {name: typo, namespace: shop}, spec: {prunne: false, sources: [{kind: ConfigMap, name: m, kee: x}]}}\n"},
			code: cli.ExitFindings, want: []string{`ApplySet/typo: unknown field "spec.prunne"`, `ApplySet/typo: unknown field "spec.sources[0].kee"`}},
		{name: "JSON", files: map[string]string{"a.yaml": invalid}, args: []string{"-o", "json"}, code: cli.ExitFindings,
			want: []string{`"valid": false`, `"spec.resources[0].apiVersion: Required value"`}},
		{name: "a manifest that does not parse", files: map[string]string{"a.yaml": "kind: [\n"}, code: cli.ExitFailure,
			wantStderr: "malformed YAML"},
		{name: "an unknown output", files: map[string]string{"a.yaml": valid}, args: []string{"-o", "wide"}, code: cli.ExitFailure,
			wantStderr: `unknown output format "wide": want json, yaml`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			args := tt.args
			if len(tt.files) > 0 {
				args = append([]string{"-f", dir}, args...)
			}
			streams, in, out, errOut := genericiooptions.NewTestIOStreams()
			in.WriteString(tt.stdin)
			cmd := newCommand(streams)
			cmd.SetArgs(append([]string{"validate"}, args...))
			err := cmd.Execute()
			if err != nil {
				errOut.WriteString(err.Error())
			}
			if got := cli.ExitCode(err); got != tt.code {
				t.Errorf("exit status %d, want %d; output:\n%s\n%s", got, tt.code, out, errOut)
			}
			text := strings.ReplaceAll(out.String(), dir+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("want %q in:\n%s", w, text)
				}
			}
			if !strings.Contains(errOut.String(), tt.wantStderr) {
				t.Errorf("want %q in the errors:\n%s", tt.wantStderr, errOut)
			}
		})
	}
}

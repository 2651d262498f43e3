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
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// row is what a verb prints: a struct with JSON names.
type row struct {
	Parent  string   `json:"parent"`
	Members int      `json:"members"`
	Kinds   []string `json:"kinds,omitempty"`
}

var rows = []row{{Parent: "secret/web", Members: 2, Kinds: []string{"ConfigMap", "ServiceAccount"}}, {Parent: "secret/db", Members: 10}}

// printed runs a verb printing rows as a List with -o args, and returns
// what it printed and the error of its flags.
func printed(t *testing.T, output *Output, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := &cobra.Command{Use: "verb", Args: cobra.NoArgs, SilenceErrors: true, SilenceUsage: true,
		RunE: func(*cobra.Command, []string) error {
			if !output.Printed() {
				out.WriteString("own " + output.Format)
				return nil
			}
			return output.PrintList(&out, rows)
		}}
	output.AddFlags(cmd)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestOutputFormats(t *testing.T) {
	dir := t.TempDir()
	columns, template := filepath.Join(dir, "columns"), filepath.Join(dir, "template")
	if err := os.WriteFile(columns, []byte("PARENT   MEMBERS\n.parent  {.members}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(template, []byte(`{{range .items}}{{.parent}};{{end}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"text", nil, "own "},
		{"a format of the verb's own", []string{"-o", "wide"}, "own wide"},
		{"JSON, indented as kubectl indents it", []string{"-o", "json"}, "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"kinds\": [\n"},
		{"YAML", []string{"-o", "yaml"}, "apiVersion: v1\nitems:\n- kinds:\n  - ConfigMap\n  - ServiceAccount\n  members: 2\n  parent: secret/web\n"},
		{"jsonpath", []string{"-o", "jsonpath={.items[*].parent}"}, "secret/web secret/db"},
		{"a jsonpath filter on a number", []string{"-o", "jsonpath={.items[?(@.members>2)].parent}"}, "secret/db"},
		{"a jsonpath filter on a field that is there", []string{"-o", "jsonpath={.items[?(@.kinds)].parent};"}, "secret/web;"},
		{"go-template", []string{"-o", "go-template={{range .items}}{{.parent}}={{.members}} {{end}}"}, "secret/web=2 secret/db=10 "},
		{"go-template-file", []string{"-o", "go-template-file=" + template}, "secret/web;secret/db;"},
		{"--template alone is go-template", []string{"--template", "{{len .items}}"}, "2"},
		{"custom-columns", []string{"-o", "custom-columns=PARENT:.parent,KINDS:kinds[*],NONE:{.nothing}"},
			"PARENT       KINDS                      NONE\nsecret/web   ConfigMap,ServiceAccount   <none>\nsecret/db    <none>                     <none>\n"},
		{"custom-columns-file", []string{"-o", "custom-columns-file=" + columns}, "PARENT       MEMBERS\nsecret/web   2\nsecret/db    10\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := printed(t, NewOutput("wide").WithColumns(), tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out, tt.want) {
				t.Errorf("printed:\n%s\nwant it to start with:\n%s", out, tt.want)
			}
		})
	}
}

// TestOutputRefused keeps every format a verb cannot print an error of its
// flags, before the verb runs.
func TestOutputRefused(t *testing.T) {
	tests := []struct {
		name   string
		output *Output
		args   []string
		want   string
	}{
		{"an unknown format", NewOutput("wide"), []string{"-o", "bogus"}, `unknown output format "bogus": want wide, json, yaml, kyaml, go-template=...`},
		{"name, where the verb does not print it", NewOutput(), []string{"-o", "name"}, `unknown output format "name"`},
		{"custom-columns, where the verb does not offer them", NewOutput(), []string{"-o", "custom-columns=A:.a"}, `unknown output format "custom-columns=A:.a"`},
		{"jsonpath without a template", NewOutput(), []string{"-o", "jsonpath"}, "no template given"},
		{"a jsonpath that does not parse", NewOutput(), []string{"-o", "jsonpath={.items[}"}, "unterminated array"},
		{"a go-template file that is not there", NewOutput(), []string{"-o", "go-template-file=/no/such/file"}, "/no/such/file"},
		{"custom-columns without a path", NewOutput().WithColumns(), []string{"-o", "custom-columns=PARENT"}, "expected <header>:<json-path-expr>"},
		{"custom-columns without columns", NewOutput().WithColumns(), []string{"-o", "custom-columns="}, "no custom columns given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := printed(t, tt.output, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if out != "" {
				t.Errorf("the verb ran and printed %q", out)
			}
		})
	}
}

func TestListOfNothingHasNoItems(t *testing.T) {
	var none []row
	list, err := asList(none)
	if err != nil {
		t.Fatal(err)
	}
	if items, ok := list.Object["items"].([]any); !ok || len(items) != 0 {
		t.Errorf("items %#v, want []", list.Object["items"])
	}
}

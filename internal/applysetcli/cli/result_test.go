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
	"fmt"
	"io"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// found is a Document: a verb's finding.
type found struct {
	Parent string `json:"parent"`
}

func (found) Kind() string             { return "Found" }
func (f found) Text(w io.Writer) error { _, err := fmt.Fprintf(w, "found %s\n", f.Parent); return err }

// checked is a List and a Check, with its own format name, as verify's and
// list's results are.
type checked []found

func (c checked) Items() any  { return []found(c) }
func (c checked) Found() bool { return len(c) > 0 }
func (c checked) Text(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%d found\n", len(c))
	return err
}
func (c checked) Format(w io.Writer, _ string) error {
	for _, f := range c {
		fmt.Fprintln(w, f.Parent)
	}
	return nil
}
func (c checked) Nothing() string {
	if len(c) == 0 {
		return "Nothing found."
	}
	return ""
}

// TestScaffoldPrintsResults: the scaffolds print a Run's Result as its
// text, as a document of its kind or a List of its items when -o asks, in
// its own formats, or say on standard error that it holds nothing; a Check
// that found something ends with ExitFindings, printed all the same.
func TestScaffoldPrintsResults(t *testing.T) {
	some := checked{{Parent: "secret/web"}}
	for _, tc := range []struct {
		name      string
		output    *Output
		format    string
		result    Result
		want      string
		wantErr   string
		wantFound bool
	}{
		{"a verb without -o", nil, "", found{Parent: "secret/web"}, "found secret/web\n", "", false},
		{"text", NewOutput(), "", found{Parent: "secret/web"}, "found secret/web\n", "", false},
		{"yaml", NewOutput(), "yaml", found{Parent: "secret/web"}, "apiVersion: applyset.dev/v1alpha1\nkind: Found\nparent: secret/web\n", "", false},
		{"jsonpath", NewOutput(), "jsonpath={.kind} {.parent}", found{Parent: "secret/web"}, "Found secret/web", "", false},
		{"a list as text", NewOutput("name"), "", some, "1 found\n", "", true},
		{"a list as jsonpath", NewOutput("name"), "jsonpath={.kind} {.items[0].parent}", some, "List secret/web", "", true},
		{"a list in its own format", NewOutput("name"), "name", some, "secret/web\n", "", true},
		{"nothing as text", NewOutput("name"), "", checked{}, "", "Nothing found.\n", false},
		{"nothing as json", NewOutput("name"), "jsonpath={.items}", checked{}, "[]", "", false},
		{"nothing in its own format", NewOutput("name"), "name", checked{}, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.output != nil {
				tc.output.Format = tc.format
				tc.output.flags.OutputFormat = &tc.output.Format
				if err := tc.output.validate(); err != nil {
					t.Fatal(err)
				}
			}
			var out, errOut bytes.Buffer
			err := show(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, tc.output, tc.result)
			if found := ExitCode(err) == ExitFindings; err != nil && !found || found != tc.wantFound {
				t.Errorf("error %v, want findings: %v", err, tc.wantFound)
			}
			if out.String() != tc.want || errOut.String() != tc.wantErr {
				t.Errorf("printed %q and %q on standard error, want %q and %q", out.String(), errOut.String(), tc.want, tc.wantErr)
			}
		})
	}
}

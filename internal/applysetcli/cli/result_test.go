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
	"errors"
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

// previewed is a Check, Partial and Noted, as validate's verdicts are.
type previewed struct {
	differs bool
	err     error
}

func (p previewed) Text(w io.Writer) error  { _, err := fmt.Fprintln(w, "+a"); return err }
func (p previewed) Notes(w io.Writer) error { _, err := fmt.Fprintln(w, "1 to change"); return err }
func (p previewed) Found() bool             { return p.differs }
func (p previewed) Err() error              { return p.err }

// annotated is Annotated: its notes go between its lines.
type annotated struct{}

func (annotated) Text(w io.Writer) error { _, err := fmt.Fprintln(w, "the text alone"); return err }
func (annotated) Annotate(out, notes io.Writer) error {
	fmt.Fprintln(out, "+a")
	fmt.Fprintln(notes, "b: shown as declared")
	_, err := fmt.Fprintln(out, "+b")
	return err
}

// TestScaffoldPrintsResults: the scaffolds print a Run's Result as its
// text, as a document of its kind or a List of its items when -o asks, in
// its own formats, or say on standard error that it holds nothing; a Check
// that found something ends with ExitFindings, printed all the same.
func TestScaffoldPrintsResults(t *testing.T) {
	some := checked{{Parent: "secret/web"}}
	for _, tc := range []struct {
		name     string
		output   *Output
		format   string
		result   Result
		want     string
		wantErr  string
		wantCode int
	}{
		{"a verb without -o", nil, "", found{Parent: "secret/web"}, "found secret/web\n", "", 0},
		{"text", NewOutput(), "", found{Parent: "secret/web"}, "found secret/web\n", "", 0},
		{"yaml", NewOutput(), "yaml", found{Parent: "secret/web"}, "apiVersion: applyset.dev/v1alpha1\nkind: Found\nparent: secret/web\n", "", 0},
		{"jsonpath", NewOutput(), "jsonpath={.kind} {.parent}", found{Parent: "secret/web"}, "Found secret/web", "", 0},
		{"a list as text", NewOutput("name"), "", some, "1 found\n", "", ExitFindings},
		{"a list as jsonpath", NewOutput("name"), "jsonpath={.kind} {.items[0].parent}", some, "List secret/web", "", ExitFindings},
		{"a list in its own format", NewOutput("name"), "name", some, "secret/web\n", "", ExitFindings},
		{"nothing as text", NewOutput("name"), "", checked{}, "", "Nothing found.\n", 0},
		{"nothing as json", NewOutput("name"), "jsonpath={.items}", checked{}, "[]", "", 0},
		{"nothing in its own format", NewOutput("name"), "name", checked{}, "", "", 0},
		{"notes after the text", nil, "", previewed{differs: true}, "+a\n", "1 to change\n", ExitFindings},
		{"notes beside the text", nil, "", annotated{}, "+a\n+b\n", "b: shown as declared\n", 0},
		{"no differences", nil, "", previewed{}, "+a\n", "1 to change\n", 0},
		{"a partial result is printed, then its error", nil, "", previewed{differs: true, err: errors.New("1 of 2 objects could not be previewed")},
			"+a\n", "1 to change\n", ExitFailure},
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
			err := Show(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, tc.output, tc.result)
			if ExitCode(err) != tc.wantCode {
				t.Errorf("error %v: exit status %d, want %d", err, ExitCode(err), tc.wantCode)
			}
			if out.String() != tc.want || errOut.String() != tc.wantErr {
				t.Errorf("printed %q and %q on standard error, want %q and %q", out.String(), errOut.String(), tc.want, tc.wantErr)
			}
		})
	}
}

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
)

// found is a Result: a verb's finding.
type found struct {
	Parent string `json:"parent"`
}

func (found) Kind() string             { return "Found" }
func (f found) Text(w io.Writer) error { _, err := fmt.Fprintf(w, "found %s\n", f.Parent); return err }

// TestVerbPrintsItsResult: the scaffold prints a Run's Result as its text,
// or as a document of its kind when -o asks.
func TestVerbPrintsItsResult(t *testing.T) {
	for _, tc := range []struct {
		name   string
		output *Output
		format string
		want   string
	}{
		{"a verb without -o", nil, "", "found secret/web\n"},
		{"text", NewOutput(), "", "found secret/web\n"},
		{"yaml", NewOutput(), "yaml", "apiVersion: applyset.dev/v1alpha1\nkind: Found\nparent: secret/web\n"},
		{"jsonpath", NewOutput(), "jsonpath={.kind} {.parent}", "Found secret/web"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.output != nil {
				tc.output.Format = tc.format
				tc.output.flags.OutputFormat = &tc.output.Format
				if err := tc.output.validate(); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			if err := (Verb{Output: tc.output}).print(&out, found{Parent: "secret/web"}); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("printed %q, want %q", out.String(), tc.want)
			}
		})
	}
}

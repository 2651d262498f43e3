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

package apply

import (
	"strings"
	"testing"
)

func TestParseFieldPath(t *testing.T) {
	tests := []struct {
		path    string
		want    []string
		wantErr string
	}{
		{path: ".spec.replicas", want: []string{"spec", "replicas"}},
		{path: ".data", want: []string{"data"}},
		{path: "spec.replicas", wantErr: "does not start with a dot"},
		{path: ".", wantErr: "does not start with a dot and a field name"},
		{path: "", wantErr: "does not start with a dot"},
		{path: ".spec..replicas", wantErr: "has an empty field name"},
		{path: ".spec.", wantErr: "has an empty field name"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := ParseFieldPath(tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an error saying %q, got %v %v", tt.wantErr, got, err)
				}
				return
			}
			if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %v %v, want %v", got, err, tt.want)
			}
		})
	}
}

// FuzzParseFieldPath checks that every path read back joins to itself and
// names no empty field.
func FuzzParseFieldPath(f *testing.F) {
	for _, seed := range []string{".spec.replicas", ".", "", "..", ".a..b", "spec"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, path string) {
		names, err := ParseFieldPath(path)
		if err != nil {
			return
		}
		if "."+strings.Join(names, ".") != path {
			t.Fatalf("%q read as %q", path, names)
		}
		for _, n := range names {
			if n == "" {
				t.Fatalf("%q read with an empty name: %q", path, names)
			}
		}
	})
}

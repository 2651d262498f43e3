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
	"slices"
	"testing"
)

func TestFlagsFirst(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"crd", "-o", "wide"}, []string{"-o", "wide", "--", "crd"}},
		{[]string{"-o=json", "crd"}, []string{"-o=json", "--", "crd"}},
		{[]string{"--kubeconfig", "/k", "crd", "--context", "c"}, []string{"--kubeconfig", "/k", "--context", "c", "--", "crd"}},
		{[]string{"--", "-weird-crd"}, []string{"--", "-weird-crd"}},
		{nil, []string{"--"}},
	}
	for _, tt := range tests {
		if got := flagsFirst(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("flagsFirst(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzFlagsFirst(f *testing.F) {
	f.Add("crd", "-o", "wide")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		in := []string{a, b, c}
		out := flagsFirst(in)
		// Nothing is lost or invented: every argument but the added "--" is kept.
		if len(out) != len(in)+1 && !slices.Contains(in, "--") {
			t.Fatalf("flagsFirst(%q) = %q", in, out)
		}
	})
}

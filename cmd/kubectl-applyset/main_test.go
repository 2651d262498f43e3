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

// Run under the completer's name, the plugin answers kubectl's request for
// completions; under any other, it runs the words it was given.
func TestArgsOf(t *testing.T) {
	for _, tc := range []struct {
		argv, want []string
	}{
		{[]string{"kubectl-applyset", "view", "secret/web"}, []string{"view", "secret/web"}},
		{[]string{"/home/me/.krew/bin/kubectl-applyset"}, []string{}},
		{[]string{"kubectl_complete-applyset", "view", ""}, []string{"__complete", "view", ""}},
		{[]string{"/usr/local/bin/kubectl_complete-applyset", "-n", "shop", "v"}, []string{"__complete", "-n", "shop", "v"}},
		{[]string{"kubectl_complete-applyset"}, []string{"__complete"}},
		{[]string{"kubectl_complete-applyset-old", "view"}, []string{"view"}},
	} {
		if got := argsOf(tc.argv); !slices.Equal(got, tc.want) {
			t.Errorf("argsOf(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}

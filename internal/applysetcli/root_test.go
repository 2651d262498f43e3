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
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestNewCommandHasEveryVerb keeps the verbs of every audience registered,
// each once.
func TestNewCommandHasEveryVerb(t *testing.T) {
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	var got []string
	for _, c := range NewCommand(streams).Commands() {
		got = append(got, c.Name())
	}
	want := []string{"adopt", "approve", "delete", "diff", "disband", "list", "push", "release-finalizers", "ui", "validate", "verify", "view"}
	if !slices.Equal(got, want) {
		t.Errorf("verbs %v, want %v", got, want)
	}
}

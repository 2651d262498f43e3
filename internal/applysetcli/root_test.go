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
	"bytes"
	"regexp"
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
	want := []string{"adopt", "approve", "delete", "diff", "disband", "list", "push", "release-finalizers", "ui", "validate", "verify", "version", "view"}
	if !slices.Equal(got, want) {
		t.Errorf("verbs %v, want %v", got, want)
	}
}

// Every verb's help says what it does at length and shows it, and names
// parents one way: applyset/NAME, clusterapplyset/NAME, secret/NAME or
// configmap/NAME.
func TestEveryVerbHasHelp(t *testing.T) {
	parent := regexp.MustCompile(`kubectl applyset [a-z-]+ ([a-z.]+)/[a-z0-9-]+`)
	for _, c := range NewCommand(genericiooptions.NewTestIOStreamsDiscard()).Commands() {
		if c.Short == "" || c.Long == "" || c.Example == "" {
			t.Errorf("%s: short %q, long %d bytes, example %d bytes; want all three", c.Name(), c.Short, len(c.Long), len(c.Example))
		}
		var help bytes.Buffer
		c.SetOut(&help)
		if err := c.Help(); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		for _, m := range parent.FindAllStringSubmatch(help.String(), -1) {
			if !slices.Contains([]string{"applyset", "clusterapplyset", "secret", "configmap"}, m[1]) {
				t.Errorf("%s: its help names a parent %q; name parents applyset/NAME, clusterapplyset/NAME, secret/NAME or configmap/NAME", c.Name(), m[0])
			}
		}
	}
}

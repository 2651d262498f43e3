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
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

// registered are the plugin's verbs, sorted, and the flags of each.
func registered() ([]string, map[string][]string) {
	var verbs []string
	flags := map[string][]string{}
	for _, verb := range applysetcli.NewCommand(genericiooptions.NewTestIOStreamsDiscard()).Commands() {
		verbs = append(verbs, verb.Name())
		for _, name := range []string{"all-namespaces", "selector", "output", "filename", "yes", "dry-run"} {
			if verb.Flags().Lookup(name) != nil {
				flags[name] = append(flags[name], verb.Name())
			}
		}
	}
	slices.Sort(verbs)
	for _, v := range flags {
		slices.Sort(v)
	}
	return verbs, flags
}

// TestDocsNameEveryVerb keeps the three places that list the verbs (this
// command's package doc, .krew.yaml's description, the reference's "What
// each verb does") to the verbs the plugin registers.
func TestDocsNameEveryVerb(t *testing.T) {
	root, err := controlplane.Root()
	if err != nil {
		t.Fatal(err)
	}
	verbs, _ := registered()

	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	for _, verb := range verbs {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(verb) + `\b`).MatchString(doc) {
			t.Errorf("the package doc of kubectl-applyset does not name the verb %s", verb)
		}
	}

	var krew struct {
		Spec struct{ Description string }
	}
	data, err := os.ReadFile(filepath.Join(root, ".krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The template's actions are not YAML: only the part before them is read.
	head, _, _ := strings.Cut(string(data), "  platforms:")
	if err := yaml.Unmarshal([]byte(head), &krew); err != nil {
		t.Fatal(err)
	}
	checkVerbs(t, ".krew.yaml's description", verbs, regexp.MustCompile(`(?m)^  ([a-z-]+)  `), krew.Spec.Description)

	reference := readReference(t, root)
	section, _, _ := strings.Cut(reference[strings.Index(reference, "### What each verb does"):], "\n### Exit")
	checkVerbs(t, "docs/reference/plugin.md's What each verb does", verbs, regexp.MustCompile(`(?m)^- \*\*([a-z-]+)`), section)
}

// TestDocsNameEveryVerbsFlags keeps the reference's table of which verb
// takes which flag to the flags each verb registers.
func TestDocsNameEveryVerbsFlags(t *testing.T) {
	root, err := controlplane.Root()
	if err != nil {
		t.Fatal(err)
	}
	_, flags := registered()
	row := regexp.MustCompile("(?m)^\\| `-?-?[a-zA-Z]`?,? ?`?--([a-z-]+)`[^|]*\\| (.*) \\|$|^\\| `--([a-z-]+)` \\| (.*) \\|$")
	documented := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(readReference(t, root), -1) {
		name, verbs := m[1]+m[3], m[2]+m[4]
		for _, v := range strings.Split(verbs, ", ") {
			documented[name] = append(documented[name], strings.Trim(v, "`"))
		}
		slices.Sort(documented[name])
	}
	for name, verbs := range flags {
		if !slices.Equal(documented[name], verbs) {
			t.Errorf("docs/reference/plugin.md says --%s is taken by %v; the plugin registers it on %v", name, documented[name], verbs)
		}
	}
}

func readReference(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", "reference", "plugin.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkVerbs compares the verbs a pattern finds in text with the registered.
func checkVerbs(t *testing.T, where string, verbs []string, pattern *regexp.Regexp, text string) {
	t.Helper()
	var found []string
	for _, m := range pattern.FindAllStringSubmatch(text, -1) {
		found = append(found, m[1])
	}
	slices.Sort(found)
	if !slices.Equal(found, verbs) {
		t.Errorf("%s names the verbs\n  %v\nthe plugin registers\n  %v", where, found, verbs)
	}
}

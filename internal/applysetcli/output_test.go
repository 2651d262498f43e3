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
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// TestEveryPrintingVerbChecksOutputFirst runs every verb that prints
// results with each -o every one of them takes, and with one none takes:
// json and yaml get past the flags (to the cluster, or to validate's
// verdicts), -o bogus is a usage error before any request.
func TestEveryPrintingVerbChecksOutputFirst(t *testing.T) {
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		http.Error(w, "no request was expected", http.StatusTeapot)
	}))
	t.Cleanup(server.Close)
	manifest := filepath.Join(t.TempDir(), "set.yaml")
	set := "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: web, namespace: shop}, spec: {resources: " +
		"[{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}]}}\n"
	if err := os.WriteFile(manifest, []byte(set), 0o600); err != nil {
		t.Fatal(err)
	}
	// The arguments each verb needs to run.
	args := map[string][]string{"view": {"secret/web"}, "validate": {"-f", manifest}}
	var printing []string
	for _, verb := range NewCommand(genericiooptions.NewTestIOStreamsDiscard()).Commands() {
		if verb.Flags().Lookup("output") != nil {
			printing = append(printing, verb.Name())
		}
	}
	if want := []string{"list", "validate", "verify", "version", "view"}; !slices.Equal(printing, want) {
		t.Errorf("verbs with -o: %v, want %v", printing, want)
	}
	for _, verb := range printing {
		for _, output := range []string{"json", "yaml", "bogus"} {
			t.Run(verb+" -o "+output, func(t *testing.T) {
				requests.Store(0)
				line := append(append([]string{verb, "-o", output}, args[verb]...), "--server="+server.URL, "--kubeconfig=/dev/null")
				code, stderr := execute(t, &bytes.Buffer{}, line...)
				usage := "See 'kubectl applyset " + verb + " --help' for usage."
				if output == "bogus" {
					if code != cli.ExitFailure || !strings.Contains(stderr, `unknown output format "bogus"`) || !strings.Contains(stderr, usage) {
						t.Errorf("exit status %d, want %d with a usage error; stderr:\n%s", code, cli.ExitFailure, stderr)
					}
					if n := requests.Load(); n > 0 {
						t.Errorf("%d requests made before the usage error", n)
					}
					return
				}
				if strings.Contains(stderr, usage) {
					t.Errorf("-o %s refused:\n%s", output, stderr)
				}
				// validate and version print without asking the API server.
				offline := verb == "validate" || verb == "version"
				if offline && code != 0 {
					t.Errorf("exit status %d; stderr:\n%s", code, stderr)
				}
				if !offline && requests.Load() == 0 {
					t.Errorf("no request made with -o %s; stderr:\n%s", output, stderr)
				}
			})
		}
	}
}

// TestOutputFormatsAgainstAPIServer prints the sets of a namespace and one
// set in the formats of kubectl's print flags, as scripts read them.
func TestOutputFormatsAgainstAPIServer(t *testing.T) {
	e := startShop(t)
	e.kubectl(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}", "apply", "--server-side", "--prune", "--applyset=configmaps/db", "-n", "shop", "-f", "-")

	tests := []struct {
		name string
		args []string
		want string // a regular expression the whole output matches
	}{
		{"list -o jsonpath", []string{"list", "-o", "jsonpath={.items[*].parent}"}, `^configmap/db secret/web$`},
		{"list -o jsonpath with a filter", []string{"list", "-o", `jsonpath={.items[?(@.parent=="secret/web")].members}`}, `^2$`},
		{"list -o custom-columns", []string{"list", "-o", "custom-columns=PARENT:.parent,MEMBERS:.members,HEALTH:.health,FINDINGS:.findings[*].reason"},
			`^PARENT\s+MEMBERS\s+HEALTH\s+FINDINGS\nconfigmap/db\s+1\s+1/1 ready\s+<none>\nsecret/web\s+2\s+2/2 ready\s+<none>\n$`},
		{"list -o go-template", []string{"list", "-o", "go-template={{range .items}}{{.parent}} {{.id}}{{\"\\n\"}}{{end}}"},
			`^configmap/db applyset-\S+\nsecret/web applyset-\S+\n$`},
		{"list -o name", []string{"list", "-o", "name"}, `^configmap/db\nsecret/web\n$`},
		{"view -o jsonpath", []string{"view", "secret/web", "-o", "jsonpath={.kind} {.parent} {.health} {.memberList[*].name}"},
			`^ParentView secret/web 2/2 ready a b$`},
		{"view -o custom-columns", []string{"view", "secret/web", "-o", "custom-columns=PARENT:.parent,TOOLING:.tooling,KINDS:.hintKinds[*]"},
			`^PARENT\s+TOOLING\s+KINDS\nsecret/web\s+kubectl/v1\.37\.1\s+ConfigMap,ServiceAccount\n$`},
		{"verify -o jsonpath", []string{"verify", "secret/web", "-o", "jsonpath={.items[0].health}"}, `^2/2 ready$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := e.run(t, nil, tt.args...)
			if code != 0 {
				t.Fatalf("exit status %d; output:\n%s", code, out)
			}
			if !regexp.MustCompile(tt.want).MatchString(out) {
				t.Errorf("output:\n%s\nwant it to match %s", out, tt.want)
			}
		})
	}
	t.Run("view -o json keeps its fields, with a kind", func(t *testing.T) {
		code, out := e.run(t, nil, "view", "secret/web", "-o", "json")
		var view map[string]any
		if err := json.Unmarshal([]byte(out), &view); code != 0 || err != nil {
			t.Fatalf("exit status %d, %v; output:\n%s", code, err, out)
		}
		for key, value := range map[string]any{"apiVersion": "applyset.dev/v1alpha1", "kind": "ParentView", "parent": "secret/web",
			"namespace": "shop", "members": 2.0, "health": "2/2 ready", "tooling": "kubectl/v1.37.1"} {
			if view[key] != value {
				t.Errorf("%s: %v, want %v", key, view[key], value)
			}
		}
	})
}

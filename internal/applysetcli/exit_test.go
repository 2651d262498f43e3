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
	"io"
	"os"
	"strings"
	"testing"

	"github.com/creack/pty"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// exitEnv runs the plugin against an API server.
type exitEnv struct{ env *testenv.Env }

// run runs `kubectl applyset args...` -n shop reading in, and returns its
// exit status and all it wrote.
// runOut is run with standard output and error apart.
func (e *exitEnv) runOut(t *testing.T, in io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewCommand(genericiooptions.IOStreams{In: in, Out: &out, ErrOut: &errOut})
	cmd.SetArgs(append(args, "-n", "shop", "--kubeconfig", e.env.Kubeconfig))
	return cli.Execute(t.Context(), cmd), out.String(), errOut.String()
}

func (e *exitEnv) run(t *testing.T, in io.Reader, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := NewCommand(genericiooptions.IOStreams{In: in, Out: &out, ErrOut: &out})
	cmd.SetArgs(append(args, "-n", "shop", "--kubeconfig", e.env.Kubeconfig))
	return cli.Execute(t.Context(), cmd), out.String()
}

// shopManifests are the members of kubectl's set secret/web in namespace shop.
const shopManifests = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: v}}\n---\n{apiVersion: v1, kind: ServiceAccount, metadata: {name: b}}\n"

// startShop starts an API server with the namespace shop, in which kubectl
// applied shopManifests as the set secret/web.
func startShop(t *testing.T) *exitEnv {
	t.Helper()
	env, err := testenv.Start(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	e := &exitEnv{env: env}
	e.kubectl(t, "", "create", "namespace", "shop")
	e.kubectl(t, shopManifests, "apply", "--server-side", "--prune", "--applyset=secret/web", "-n", "shop", "-f", "-")
	return e
}

// terminal is a terminal on which answer is typed.
func terminal(t *testing.T, answer string) *os.File {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = ptmx.Close(), tty.Close() })
	if _, err := ptmx.WriteString(answer); err != nil {
		t.Fatal(err)
	}
	return tty
}

func (e *exitEnv) kubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := e.env.Kubectl(t.Context(), stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %v: %v: %s", args, err, out)
	}
	return out
}

func (e *exitEnv) hint(t *testing.T) string {
	t.Helper()
	return e.kubectl(t, "", "get", "secret/web", "-n", "shop", "-o", `jsonpath={.metadata.annotations.applyset\.kubernetes\.io/contains-group-kinds}`)
}

func want(t *testing.T, code, wantCode int, out string, wants ...string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("exit status %d, want %d; output:\n%s", code, wantCode, out)
	}
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("want %q in:\n%s", w, out)
		}
	}
}

// TestExitStatuses runs the verbs against an API server for each exit
// status a script relies on: findings, differences, an answer no, a write
// nobody could be asked about, and --yes.
func TestExitStatuses(t *testing.T) {
	e := startShop(t)
	e.kubectl(t, "", "annotate", "secret/web", "-n", "shop", "--overwrite", applyset.GroupKindsAnnotation+"=ConfigMap")

	t.Run("verify: findings exit 1", func(t *testing.T) {
		code, out := e.run(t, nil, "verify", "secret/web")
		want(t, code, cli.ExitFindings, out, "HintIncomplete")
	})
	t.Run("diff: differences exit 1", func(t *testing.T) {
		code, out := e.run(t, strings.NewReader(strings.Replace(shopManifests, "k: v", "k: w", 1)), "diff", "-f", "-", "--applyset=web")
		want(t, code, cli.ExitFindings, out, "+  k: w")
	})
	t.Run("diff of an operator's set: a flag of kubectl's apply it would ignore exits 2", func(t *testing.T) {
		set := "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: s, namespace: shop}, " +
			"spec: {resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}]}}\n"
		for _, flag := range []string{"--prune", "--field-manager=me", "--force-conflicts"} {
			code, out := e.run(t, strings.NewReader(set), "diff", "-f", "-", flag)
			want(t, code, cli.ExitFailure, out, "does not apply to a preview of the operator's sets")
		}
	})
	t.Run("verify --fix: no exits 3 and writes nothing", func(t *testing.T) {
		code, out := e.run(t, terminal(t, "n\n"), "verify", "secret/web", "--fix")
		want(t, code, cli.ExitDeclined, out, "Rewrite the hints of 1 parents?", "Nothing changed")
		if hint := e.hint(t); hint != "ConfigMap" {
			t.Errorf("hint %q written", hint)
		}
	})
	t.Run("verify --fix: without a terminal or --yes, refused with exit 2", func(t *testing.T) {
		code, out := e.run(t, strings.NewReader("y\n"), "verify", "secret/web", "--fix")
		want(t, code, cli.ExitFailure, out, "--yes")
		if hint := e.hint(t); hint != "ConfigMap" {
			t.Errorf("hint %q written", hint)
		}
	})
	t.Run("disband: no exits 3 and writes nothing", func(t *testing.T) {
		code, out := e.run(t, terminal(t, "n\n"), "disband", "secret/web")
		want(t, code, cli.ExitDeclined, out, "Disband?", "Nothing changed")
		if hint := e.hint(t); hint != "ConfigMap" {
			t.Errorf("parent cleared: hint %q", hint)
		}
	})
	t.Run("disband: without a terminal or --yes, refused with exit 2", func(t *testing.T) {
		code, out := e.run(t, strings.NewReader("y\n"), "disband", "secret/web")
		want(t, code, cli.ExitFailure, out, "--yes")
	})
	t.Run("verify --fix: a finding it cannot fix exits 1", func(t *testing.T) {
		id := e.kubectl(t, "", "get", "secret/web", "-n", "shop", "-o", `jsonpath={.metadata.labels.applyset\.kubernetes\.io/id}`)
		e.kubectl(t, "", "create", "configmap", "copy", "-n", "shop")
		e.kubectl(t, "", "label", "configmap/copy", "-n", "shop", applyset.IDLabel+"="+id)
		code, out := e.run(t, nil, "verify", "configmap/copy", "--fix", "--yes")
		want(t, code, cli.ExitFindings, out, "not rewritten: its ID is not its own", "IDMismatch")
	})
	t.Run("verify --fix -o json|yaml: standard output is the document alone", func(t *testing.T) {
		for _, format := range []string{"json", "yaml"} {
			code, stdout, stderr := e.runOut(t, nil, "verify", "secret/web", "--fix", "--dry-run=server", "-o", format)
			want(t, code, cli.ExitFindings, stderr, "hints rewritten (server dry run)")
			var doc struct {
				APIVersion string
				Kind       string
				Items      []map[string]any
			}
			// Strict: a line of progress above the document is a key too.
			parse := yaml.UnmarshalStrict
			if format == "json" {
				parse = func(data []byte, v any, _ ...yaml.JSONOpt) error { return json.Unmarshal(data, v) }
			}
			if err := parse([]byte(stdout), &doc); err != nil || doc.Kind != "List" || len(doc.Items) != 1 {
				t.Errorf("-o %s: standard output is not the list of one parent (%v):\n%s", format, err, stdout)
			}
		}
	})
	t.Run("verify --fix --yes: fixing everything exits 0", func(t *testing.T) {
		code, out := e.run(t, nil, "verify", "secret/web", "--fix", "-y")
		want(t, code, 0, out, "hints rewritten", "no findings")
		if hint := e.hint(t); hint != "ConfigMap,ServiceAccount" {
			t.Errorf("hint %q, want ConfigMap,ServiceAccount", hint)
		}
	})
	t.Run("the operator's verbs refuse another tool's set with 2, before any write", func(t *testing.T) {
		for _, verb := range []string{"delete", "approve", "release-finalizers"} {
			code, out := e.run(t, nil, verb, "secret/web", "--yes")
			want(t, code, cli.ExitFailure, out, "secret/web in namespace shop is not one of the operator's sets")
		}
		e.kubectl(t, "", "get", "secret/web", "-n", "shop") // still there
	})
	t.Run("release-finalizers asks", func(t *testing.T) { releaseAsks(t, e) })
	t.Run("push and ui ask", func(t *testing.T) { pushAndUIAsk(t, e) })
}

// pushAndUIAsk: push writes to a registry and ui's page approves plans, so
// both ask first; neither reaches a registry or serves when told no. The
// registry named is unreachable: a push that went ahead would fail with 2.
func pushAndUIAsk(t *testing.T, e *exitEnv) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/cm.yaml", []byte(shopManifests), 0o600); err != nil {
		t.Fatal(err)
	}
	push := []string{"push", dir, "oci://127.0.0.1:1/app", "--tag", "v1", "--insecure"}
	for _, tc := range []struct {
		name string
		in   func() io.Reader
		args []string
		code int
		want []string
	}{
		{"push: no exits 3", func() io.Reader { return terminal(t, "n\n") }, push, cli.ExitDeclined, []string{"Push 1 files", "Nothing changed"}},
		{"push: without a terminal or --yes, refused with exit 2", func() io.Reader { return strings.NewReader("y\n") }, push, cli.ExitFailure, []string{"--yes"}},
		{"ui: no exits 3", func() io.Reader { return terminal(t, "n\n") }, []string{"ui"}, cli.ExitDeclined, []string{"Approve button", "Nothing changed"}},
		{"ui: without a terminal or --yes, refused with exit 2", func() io.Reader { return strings.NewReader("") }, []string{"ui"}, cli.ExitFailure, []string{"--yes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := e.run(t, tc.in(), tc.args...)
			want(t, code, tc.code, out, tc.want...)
			if strings.Contains(out, "http://") || strings.Contains(out, "Pushed") {
				t.Errorf("served or pushed without a yes:\n%s", out)
			}
		})
	}
}

// releaseAsks lets a set being deleted go only when told to.
func releaseAsks(t *testing.T, e *exitEnv) {
	cm, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "member"}})
	if err != nil {
		t.Fatal(err)
	}
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "stuck", Finalizers: []string{applyv1alpha1.MembersFinalizer}}}
	set.Spec.Resources = []applyv1alpha1.Resource{cm}
	cl := e.env.Client
	if err := cl.Create(t.Context(), set); err != nil {
		t.Fatal(err)
	}
	if err := cl.Delete(t.Context(), set); err != nil {
		t.Fatal(err)
	}
	held := func() bool {
		t.Helper()
		err := cl.Get(t.Context(), client.ObjectKeyFromObject(set), set)
		return err == nil && len(set.Finalizers) > 0
	}
	const parent = "applysets.apply.applyset.dev/stuck"
	code, out := e.run(t, strings.NewReader(""), "release-finalizers", parent)
	want(t, code, cli.ExitFailure, out, "--yes")
	code, out = e.run(t, terminal(t, "n\n"), "release-finalizers", parent)
	want(t, code, cli.ExitDeclined, out, "Nothing changed")
	if !held() {
		t.Fatal("the finalizer was released without a yes")
	}
	code, out = e.run(t, terminal(t, "y\n"), "release-finalizers", parent)
	want(t, code, 0, out, "released")
	if held() {
		t.Error("the finalizer is still there")
	}
}

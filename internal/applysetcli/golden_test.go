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
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var (
	update = flag.Bool("update", false, "Write the golden outputs of testdata/golden from what the plugin prints now.")
	plugin = flag.String("plugin", "", "Run this kubectl-applyset binary instead of the plugin in this package: "+
		"compares another build, an older one say, with the golden outputs.")
)

// goldenCase is one command line whose output users rely on.
type goldenCase struct {
	name  string
	stdin string
	args  []string
}

// The manifests diff reads: the set secret/web with a changed ConfigMap
// (diffChanged), and without its ServiceAccount (diffPruned).
var (
	diffChanged = strings.Replace(shopManifests, "k: v", "k: w", 1)
	diffPruned  = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: w}}\n---\n" +
		"{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {new: one}}\n"
)

var goldenCases = []goldenCase{
	{name: "list", args: []string{"list"}},
	{name: "list-wide", args: []string{"list", "-o", "wide"}},
	{name: "list-all-namespaces", args: []string{"list", "-A"}},
	{name: "list-json", args: []string{"list", "-o", "json"}},
	{name: "list-name", args: []string{"list", "-o", "name"}},
	{name: "list-none", args: []string{"list", "-l", "team=none"}},
	{name: "verify", args: []string{"verify"}},
	{name: "verify-one", args: []string{"verify", "secret/web"}},
	{name: "verify-yaml", args: []string{"verify", "-o", "yaml"}},
	{name: "view", args: []string{"view", "secret/web"}},
	{name: "view-findings", args: []string{"view", "configmap/api"}},
	{name: "view-yaml", args: []string{"view", "secret/web", "-o", "yaml"}},
	{name: "validate", stdin: validated, args: []string{"validate", "-f", "-"}},
	{name: "validate-json", stdin: validated, args: []string{"validate", "-f", "-", "-o", "json"}},
	{name: "diff", stdin: diffChanged, args: []string{"diff", "-f", "-", "--applyset=web"}},
	{name: "diff-prune", stdin: diffPruned, args: []string{"diff", "-f", "-", "--applyset=web", "--prune"}},
	{name: "diff-none", stdin: shopManifests, args: []string{"diff", "-f", "-", "--applyset=web"}},
	{name: "diff-operator-set", stdin: operatorSet, args: []string{"diff", "-f", "-"}},
}

// operatorSet is one of the operator's sets, not created: diff previews its
// first apply.
const operatorSet = "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: shop-app, namespace: shop}, " +
	"spec: {resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: app}, data: {size: small}}]}}\n"

// validated are what validate reads: a set, one with a field its schema
// lacks, and an object of another kind.
const validated = operatorSet + "---\n" +
	"{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: odd, namespace: shop}, spec: {colour: red}}\n" +
	"---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n"

// TestGoldenOutputs keeps what list, view, verify, validate and diff print, and their exit
// statuses, as testdata/golden has them, for a fixed cluster: kubectl's set
// secret/web in namespace shop, and configmap/api whose hint misses a kind.
// Ages, times, UIDs and resource versions are masked. -update rewrites the
// files; -plugin=PATH compares another build of the plugin with them.
func TestGoldenOutputs(t *testing.T) {
	e := startShop(t)
	e.kubectl(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: api-settings}, data: {mode: fast}}\n---\n"+
		"{apiVersion: v1, kind: Secret, metadata: {name: api-key}, stringData: {key: hidden}}\n",
		"apply", "--server-side", "--prune", "--applyset=configmap/api", "-n", "shop", "-f", "-")
	e.kubectl(t, "", "annotate", "configmap/api", "-n", "shop", "--overwrite", applyset.GroupKindsAnnotation+"=ConfigMap")
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			got := e.golden(t, tc)
			file := filepath.Join("testdata", "golden", tc.name+".txt")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o600); err != nil {
					t.Fatal(err)
				}
				return
			}
			wanted, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test -run TestGoldenOutputs -args -update writes it)", err)
			}
			if got != string(wanted) {
				t.Errorf("kubectl applyset %s prints, masked:\n%s\nwhere %s has:\n%s", strings.Join(tc.args, " "), got, file, wanted)
			}
		})
	}
}

// golden runs tc -n shop and returns its exit status and output, masked.
func (e *exitEnv) golden(t *testing.T, tc goldenCase) string {
	t.Helper()
	args := append(append([]string{}, tc.args...), "-n", "shop", "--kubeconfig", e.env.Kubeconfig)
	var stdout, stderr bytes.Buffer
	code := 0
	if *plugin == "" {
		cmd := NewCommand(genericiooptions.IOStreams{In: strings.NewReader(tc.stdin), Out: &stdout, ErrOut: &stderr})
		cmd.SetArgs(args)
		code = cli.Execute(t.Context(), cmd)
	} else {
		cmd := exec.CommandContext(t.Context(), *plugin, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(tc.stdin), &stdout, &stderr
		var exit *exec.ExitError
		if err := cmd.Run(); errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("$ kubectl applyset %s\nexit status %d\n--- stdout\n%s--- stderr\n%s",
		strings.Join(tc.args, " "), code, mask(stdout.String()), mask(stderr.String()))
}

var (
	timestamps = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	uids       = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	versions   = regexp.MustCompile(`("?resourceVersion"?: )"\d+"`)
	// An age as a table prints it, with the spaces that pad its column:
	// ages of up to three characters fit the column AGE heads, so the
	// padding after it is the same whatever the age.
	ages = regexp.MustCompile(`\b\d{1,3}s\b( *)`)
)

// mask replaces what differs from run to run with its kind.
func mask(s string) string {
	s = timestamps.ReplaceAllString(s, "<time>")
	s = uids.ReplaceAllString(s, "<uid>")
	s = versions.ReplaceAllString(s, `$1"<version>"`)
	return ages.ReplaceAllStringFunc(s, func(m string) string {
		return "<age>" + strings.Repeat(" ", max(0, len(m)-len("<age>")))
	})
}

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

package readme

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

// How long one example may run: the Argo CD one applies 60 objects.
const exampleTimeout = 5 * time.Minute

// docExamples are the examples of the README and docs/, read when the
// suite's tree is built, so that each becomes a spec named after its file and
// line.
var docExamples = func() []example {
	dir, err := controlplane.Root()
	if err != nil {
		panic(err)
	}
	examples, err := allExamples(dir)
	if err != nil {
		panic(err)
	}
	return examples
}()

var _ = Describe("The examples of the README and docs/, in order", Ordered, func() {
	for _, e := range docExamples {
		switch e.mark {
		case markRun:
			It(fmt.Sprintf("%s:%d runs (%s)", e.file, e.line, e.arg), func(ctx SpecContext) {
				if setup := setups[e.arg]; setup != nil {
					setup(ctx)
				}
				out, err := runExample(ctx, e)
				Expect(err).NotTo(HaveOccurred(), "the example failed:\n%s\n-- its output:\n%s", e.body, out)
				checks[e.arg](ctx, out)
			}, SpecTimeout(exampleTimeout+time.Minute))
		case markFile:
			It(fmt.Sprintf("%s:%d is saved as %s", e.file, e.line, e.arg), func() {
				path := filepath.Join(work, e.arg)
				Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
				Expect(os.WriteFile(path, []byte(e.body), 0o644)).To(Succeed())
			})
		case markFragment:
			It(fmt.Sprintf("%s:%d is a valid %s spec", e.file, e.line, e.arg), func(ctx SpecContext) {
				checkFragment(ctx, e)
			}, SpecTimeout(time.Minute))
		}
	}
})

// runExample runs an example in bash with errexit and pipefail, in work,
// starting from what the examples before it exported, and returns what it
// wrote to standard output and error.
func runExample(ctx context.Context, e example) (string, error) {
	envFile := filepath.Join(work, ".exported")
	script := "if [[ -f " + envFile + " ]]; then source " + envFile + "; fi\n" +
		"set -euo pipefail\n" +
		"cd " + work + "\n" +
		e.body +
		"\nexport -p > " + envFile + "\n"
	ctx, cancel := context.WithTimeout(ctx, exampleTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = work
	cmd.Env = exampleEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	GinkgoWriter.Printf("$ %s\n%s\n", strings.ReplaceAll(strings.TrimSpace(e.body), "\n", "\n$ "), out.String())
	return out.String(), err
}

// nonName matches what may not be in an object's name.
var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// fragmentKinds are the kinds a fragment may be a spec of.
var fragmentKinds = map[string]struct {
	apiVersion string
	namespaced bool
}{
	"ApplySet":           {"apply.applyset.dev/v1alpha1", true},
	"ClusterApplySet":    {"apply.applyset.dev/v1alpha1", false},
	"CustomFeatureGates": {"features.applyset.dev/v1alpha1", false},
}

// checkFragment creates, with server-side dry run, an object of the kind the
// mark names with the fragment as its spec: the API server's validation and
// the operator's admission webhooks and policies accept it.
func checkFragment(ctx context.Context, e example) {
	GinkgoHelper()
	kind, ok := fragmentKinds[e.arg]
	Expect(ok).To(BeTrue(), "%s: no fragment kind %s", e, e.arg)
	fragment := map[string]any{}
	Expect(yaml.UnmarshalStrict([]byte(e.body), &fragment)).To(Succeed(), "%s", e)
	metadata := map[string]any{"name": strings.Trim(nonName.ReplaceAllString(strings.ToLower(e.file), "-"), "-") + fmt.Sprintf("-line-%d", e.line)}
	if kind.namespaced {
		metadata["namespace"] = "default"
	}
	obj := map[string]any{"apiVersion": kind.apiVersion, "kind": e.arg, "metadata": metadata, "spec": fragment["spec"]}
	data, err := yaml.Marshal(obj)
	Expect(err).NotTo(HaveOccurred())
	out, err := kubectl(ctx, string(data), "create", "--dry-run=server", "-f", "-")
	Expect(err).NotTo(HaveOccurred(), "%s as %s:\n%s\n%s", e, e.arg, data, out)
}

// kubectl runs the control plane's kubectl as its administrator, for the
// checks, and returns its combined output.
func kubectl(ctx context.Context, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(rl.BinaryDir, "kubectl"), append([]string{"--kubeconfig", rl.Kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

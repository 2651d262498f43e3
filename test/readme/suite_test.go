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

// Package readme runs the examples of the README and of every page under
// docs/ as written, in order, against what `make run` starts (a local control
// plane with kube-controller-manager, and the operator), and checks that what
// the text says happens does. The marks in the Markdown say which examples
// run (examples_test.go); checks_test.go says what each must do. It also
// keeps the pages honest without a cluster: each states its audience, its
// links resolve, and the Events reference names every reason of the code
// (pages_test.go).
package readme

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var (
	// root is the checkout; work is the directory the examples run in, laid
	// out as a checkout after `make run`: bin/ with the kubectl plugins,
	// bin/local/kubeconfig, bin/k8s/<version>/, and config/, test/ and
	// examples/ of the checkout.
	root, work string
	// home is the examples' HOME: no kubeconfig of the person running the
	// suite is in reach.
	home string
	rl   *testenv.RunLocal
	kube client.Client
)

func TestReadme(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(2 * time.Minute)
	SetDefaultEventuallyPollingInterval(time.Second)
	RunSpecs(t, "README and docs suite")
}

// checkout is the root of the checkout, for the tests that read its files.
func checkout(t testing.TB) string {
	t.Helper()
	dir, err := controlplane.Root()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	root, err = controlplane.Root()
	Expect(err).NotTo(HaveOccurred())
	work = GinkgoT().TempDir()
	home = filepath.Join(work, ".home")
	bin := filepath.Join(work, "bin")
	Expect(os.MkdirAll(home, 0o700)).To(Succeed())

	By("building the kubectl plugins into bin/, as make run does")
	for name, pkg := range map[string]string{
		"kubectl-applyset": "./cmd/kubectl-applyset", "kubectl-feature_gates": "./cmd/kubectl-feature_gates",
	} {
		build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, name), pkg)
		build.Dir = root
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	}

	By("starting what make run starts")
	manager := append([]string{filepath.Join(bin, "manager"), "--health-probe-bind-address=0"}, makeRunManagerArgs()...)
	rl = testenv.StartRunLocalWith(ctx, bin, filepath.Join(bin, "local", "kubeconfig"), manager)
	kube = rl.Client()
	Expect(rl.Output()).To(ContainSubstring("export PATH=" + bin + ":"))

	// The rest of the checkout the examples name.
	version := kubernetesVersion()
	Expect(os.MkdirAll(filepath.Join(bin, "k8s"), 0o755)).To(Succeed())
	Expect(os.Symlink(rl.BinaryDir, filepath.Join(bin, "k8s", version))).To(Succeed())
	for _, dir := range []string{"config", "test", "examples"} {
		Expect(os.Symlink(filepath.Join(root, dir), filepath.Join(work, dir))).To(Succeed())
	}
	writeOfflineTools()
})

// kubernetesVersion is the version hack/setup-control-plane.sh pins, which
// names the directory of the binaries in bin/k8s.
func kubernetesVersion() string {
	GinkgoHelper()
	script, err := os.ReadFile(filepath.Join(root, "hack", "setup-control-plane.sh"))
	Expect(err).NotTo(HaveOccurred())
	m := regexp.MustCompile(`KUBERNETES_VERSION="\$\{KUBERNETES_VERSION:-(v[0-9.]+)\}"`).FindSubmatch(script)
	Expect(m).NotTo(BeNil(), "no pinned KUBERNETES_VERSION in hack/setup-control-plane.sh")
	return string(m[1])
}

// makeRunManagerArgs are the flags make run passes the manager, read from
// the Makefile's run target, such as the loopback hosts the OCI and Flux
// examples fetch from.
func makeRunManagerArgs() []string {
	GinkgoHelper()
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	Expect(err).NotTo(HaveOccurred())
	m := regexp.MustCompile(`(?m)^\tbin/run-local .*-- bin/manager(.*)\$\(ARGS\)$`).FindSubmatch(makefile)
	Expect(m).NotTo(BeNil(), "the Makefile's run target no longer runs bin/run-local -- bin/manager ... $(ARGS)")
	return strings.Fields(string(m[1]))
}

// offline maps the URLs the examples download from to the checkout's copies
// (gzip-compressed), which a curl of the examples' PATH serves instead: the
// suite runs without the network.
var offline = map[string]string{
	"https://raw.githubusercontent.com/argoproj/argo-cd/v3.6.1/manifests/install.yaml": "test/corpus/testdata/argo-cd.yaml.gz",
}

// writeOfflineTools writes that curl into work/.offline.
func writeOfflineTools() {
	GinkgoHelper()
	var cases strings.Builder
	for url, file := range offline {
		cases.WriteString("  " + url + ") exec gunzip -c " + filepath.Join(root, file) + " ;;\n")
	}
	script := "#!/usr/bin/env bash\n" +
		"# The README suite runs offline: this curl serves the checkout's copies of what the README downloads.\n" +
		"url=\"${*: -1}\"\n" +
		"case \"${url}\" in\n" + cases.String() +
		"  *) echo \"curl (README suite): no offline copy of ${url}\" >&2; exit 1 ;;\nesac\n"
	dir := filepath.Join(work, ".offline")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "curl"), []byte(script), 0o755)).To(Succeed())
}

// exampleEnv is the environment an example starts from: the suite's own
// without any kubeconfig or kubectl setting, with a HOME of its own and the
// offline curl first on PATH. What an example exports reaches the next ones.
func exampleEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH":
			env = append(env, "PATH="+filepath.Join(work, ".offline")+":"+value)
		case name == "HOME", name == "KUBECONFIG", name == "KUBEBUILDER_ASSETS", strings.HasPrefix(name, "KUBECTL_"):
		default:
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home)
}

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

// Package runlocal tests `make run` with no cluster configured: run-local starts
// a control plane, the manager runs against it (its feature gate webhook
// included), and an interrupt stops both.
package runlocal

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

func TestRunLocal(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "run-local suite")
}

// syncBuffer lets the test read what the process writes while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var _ = Describe("run-local with no reachable cluster", func() {
	It("runs the manager on a local control plane and stops everything on interrupt", func(ctx context.Context) {
		root, err := controlplane.Root()
		Expect(err).NotTo(HaveOccurred())
		binDir, err := controlplane.BinaryDir(ctx)
		Expect(err).NotTo(HaveOccurred())

		dir := GinkgoT().TempDir()
		for name, pkg := range map[string]string{"run-local": "./hack/run-local", "manager": "./cmd/manager"} {
			build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, name), pkg)
			build.Dir = root
			out, err := build.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
		}

		kubeconfig := filepath.Join(dir, "local", "kubeconfig")
		cmd := exec.Command(filepath.Join(dir, "run-local"), "--local-kubeconfig", kubeconfig, "--",
			filepath.Join(dir, "manager"), "--health-probe-bind-address=0")
		cmd.Dir = root
		// No cluster is configured: the kubeconfig named does not exist.
		cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "absent"), "KUBEBUILDER_ASSETS="+binDir)
		output := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = output, output
		Expect(cmd.Start()).To(Succeed())
		defer func() { _ = cmd.Process.Kill() }()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()

		Eventually(func() string {
			select {
			case err := <-exited:
				Fail(fmt.Sprintf("run-local exited before the manager started (%v):\n%s", err, output.String()))
			default:
			}
			return output.String()
		}).WithTimeout(2*time.Minute).Should(ContainSubstring("Manager started"), "the manager did not start")
		Expect(output.String()).To(ContainSubstring("export KUBECONFIG=" + kubeconfig))

		children := childProcesses(cmd.Process.Pid)
		Expect(children).To(ContainElements(ContainSubstring("etcd"), ContainSubstring("kube-apiserver"),
			ContainSubstring("manager")))

		get := exec.CommandContext(ctx, filepath.Join(binDir, "kubectl"), "--kubeconfig", kubeconfig,
			"get", "crds", "-o", "name")
		out, err := get.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(And(
			ContainSubstring("applysets.apply.applyset.dev"),
			ContainSubstring("clusterapplysets.apply.applyset.dev"),
			ContainSubstring("customfeaturegates.features.applyset.dev"),
		))

		By("trying the feature gate sample, as the README shows")
		kubectl := func(args ...string) (string, string, error) {
			c := exec.CommandContext(ctx, filepath.Join(binDir, "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
			c.Dir = root
			var stdout, stderr bytes.Buffer
			c.Stdout, c.Stderr = &stdout, &stderr
			err := c.Run()
			return stdout.String(), stderr.String(), err
		}
		for _, args := range [][]string{
			{"apply", "-f", "config/samples/try/widgets_crd.yaml"},
			{"wait", "--for", "condition=established", "crd/widgets.example.com"},
			{"apply", "-f", "config/samples/features_v1alpha1_customfeaturegates.yaml"},
		} {
			stdout, stderr, err := kubectl(args...)
			Expect(err).NotTo(HaveOccurred(), stdout+stderr)
		}
		// The local API server serves admission policies, so the gates are
		// enforced by it (the policy backend): the disabled fields go, and the
		// deprecated one without a warning, which a policy cannot give for a
		// field it dropped (the webhook suite checks the warning).
		Eventually(func(g Gomega) {
			stdout, stderr, err := kubectl("create", "--dry-run=server", "-o", "jsonpath={.spec}", "-f", "config/samples/try/widget.yaml")
			g.Expect(err).NotTo(HaveOccurred(), stderr)
			g.Expect(stdout).To(Equal(`{"replicas":2,"storage":"1Gi"}`))
		}).WithTimeout(time.Minute).Should(Succeed(), output.String())

		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		Eventually(exited).WithTimeout(time.Minute).Should(Receive(BeNil()), output.String())
		Expect(output.String()).To(ContainSubstring("local control plane stopped"))

		for pid, name := range children {
			Expect(running(pid)).To(BeFalse(), "%s (pid %d) outlived run-local", name, pid)
		}
	})
})

// childProcesses maps the pids of the direct children of parent to their commands.
func childProcesses(parent int) map[int]string {
	entries, err := os.ReadDir("/proc")
	Expect(err).NotTo(HaveOccurred())
	children := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command in parentheses may hold spaces; the fields after it do not.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			children[pid] = filepath.Base(strings.SplitN(string(cmdline), "\x00", 2)[0])
		}
	}
	return children
}

// running reports whether pid is a live process (not gone, not a zombie).
func running(pid int) bool {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return false
	}
	defer f.Close()
	scanner := bufio.NewScanner(io.LimitReader(f, 4096))
	for scanner.Scan() {
		if state, ok := strings.CutPrefix(scanner.Text(), "State:"); ok {
			return !strings.Contains(state, "zombie")
		}
	}
	return true
}

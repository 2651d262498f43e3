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

package testenv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

// RunLocal is `make run` as a suite starts it: hack/run-local and the
// manager, built from the checkout, with no cluster configured, so that
// run-local starts a local control plane (kube-controller-manager included)
// and runs the manager against it.
type RunLocal struct {
	// Kubeconfig is where run-local wrote the control plane's kubeconfig.
	Kubeconfig string
	// BinaryDir holds the control plane's binaries, kubectl among them.
	BinaryDir string

	cmd    *exec.Cmd
	output *SyncBuffer
	// exited is closed once run-local has exited, with exitErr its Wait's error.
	exited  chan struct{}
	exitErr error
}

// StartRunLocal builds run-local and the manager into dir and starts them,
// with the kubeconfig written to kubeconfig, and returns once the manager
// has started. The control plane's binaries are found as the suites find
// them (KUBEBUILDER_ASSETS, else hack/setup-control-plane.sh). Cleanup
// interrupts run-local if it still runs.
func StartRunLocal(ctx context.Context, dir, kubeconfig string) *RunLocal {
	ginkgo.GinkgoHelper()
	return StartRunLocalWith(ctx, dir, kubeconfig, nil)
}

// StartRunLocalWith is StartRunLocal with another manager command, such as
// a stand-in that is slow to stop; nil runs the manager built from the
// checkout. Run-local waits for it to print "Manager started".
func StartRunLocalWith(ctx context.Context, dir, kubeconfig string, manager []string) *RunLocal {
	ginkgo.GinkgoHelper()
	root, err := controlplane.Root()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	binDir, err := controlplane.BinaryDir(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	// Built before run-local starts, so that its start is not a build.
	_, err = controlplane.ControllerManagerPath(ctx, binDir)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	for name, pkg := range map[string]string{"run-local": "./hack/run-local", "manager": "./cmd/manager"} {
		build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, name), pkg)
		build.Dir = root
		out, err := build.CombinedOutput()
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), string(out))
	}

	r := &RunLocal{Kubeconfig: kubeconfig, BinaryDir: binDir, output: &SyncBuffer{}, exited: make(chan struct{})}
	if manager == nil {
		manager = []string{filepath.Join(dir, "manager"), "--health-probe-bind-address=0"}
	}
	r.cmd = exec.Command(filepath.Join(dir, "run-local"), append([]string{"--local-kubeconfig", kubeconfig,
		"--plugins-dir", dir, "--"}, manager...)...)
	r.cmd.Dir = root
	// No cluster is configured: the kubeconfig named does not exist.
	r.cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "absent"), "KUBEBUILDER_ASSETS="+binDir)
	r.cmd.Stdout, r.cmd.Stderr = r.output, r.output
	// Whatever run-local leaves running holds its output open; its exit is
	// seen anyway, so that a suite can look for what outlived it.
	r.cmd.WaitDelay = 5 * time.Second
	gomega.Expect(r.cmd.Start()).To(gomega.Succeed())
	go func() {
		r.exitErr = r.cmd.Wait()
		close(r.exited)
	}()
	ginkgo.DeferCleanup(func() {
		select {
		case <-r.exited:
			return
		default:
		}
		_ = r.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-r.exited:
		case <-time.After(time.Minute):
			_ = r.cmd.Process.Kill()
			<-r.exited
		}
	})

	gomega.Eventually(func() string {
		select {
		case <-r.exited:
			ginkgo.Fail(fmt.Sprintf("run-local exited before the manager started (%v):\n%s", r.exitErr, r.output.String()))
		default:
		}
		return r.output.String()
	}).WithTimeout(3*time.Minute).WithPolling(time.Second).Should(gomega.ContainSubstring("Manager started"),
		"the manager did not start")
	return r
}

// Client returns a client of the local control plane, as its administrator,
// that knows every type the operator uses.
func (r *RunLocal) Client() client.Client {
	ginkgo.GinkgoHelper()
	cfg, err := clientcmd.BuildConfigFromFlags("", r.Kubeconfig)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	scheme, err := NewScheme()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return c
}

// Output is what run-local and the manager wrote so far.
func (r *RunLocal) Output() string { return r.output.String() }

// Interrupt sends SIGINT, as Ctrl-C does, and expects run-local to stop
// everything and exit cleanly within a minute.
func (r *RunLocal) Interrupt() {
	ginkgo.GinkgoHelper()
	gomega.Expect(r.cmd.Process.Signal(syscall.SIGINT)).To(gomega.Succeed())
	gomega.Eventually(r.exited).WithTimeout(time.Minute).Should(gomega.BeClosed(), r.output.String())
	gomega.Expect(r.exitErr).NotTo(gomega.HaveOccurred(), r.output.String())
}

// Signal sends sig to run-local alone, as a kill from another terminal does.
func (r *RunLocal) Signal(sig os.Signal) {
	ginkgo.GinkgoHelper()
	gomega.Expect(r.cmd.Process.Signal(sig)).To(gomega.Succeed())
}

// Exited is closed once run-local has exited.
func (r *RunLocal) Exited() <-chan struct{} { return r.exited }

// Children maps the pids of run-local's direct children to their commands.
func (r *RunLocal) Children() map[int]string {
	ginkgo.GinkgoHelper()
	entries, err := os.ReadDir("/proc")
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	parent := strconv.Itoa(r.cmd.Process.Pid)
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
		if len(fields) > 1 && fields[1] == parent {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			children[pid] = filepath.Base(strings.SplitN(string(cmdline), "\x00", 2)[0])
		}
	}
	return children
}

// SyncBuffer lets a test read what a process or logger writes while it runs.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

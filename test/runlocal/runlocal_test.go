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
// a control plane with kube-controller-manager, the manager runs against it,
// the built-in controllers do what they do in a real cluster, and an
// interrupt stops everything; nothing it started outlives it, however it ends.
package runlocal

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

func TestRunLocal(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "run-local suite")
}

// A set whose one member is a Deployment with no replicas: healthy once the
// Deployment controller has given it a status.
const deploymentSet = `
apiVersion: apply.applyset.dev/v1alpha1
kind: ApplySet
metadata: {name: app, namespace: %s}
spec:
  resources:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: app}
    spec:
      replicas: 0
      selector: {matchLabels: {app: app}}
      template:
        metadata: {labels: {app: app}}
        spec: {containers: [{name: app, image: registry.example/app:1}]}
`

var _ = Describe("run-local with no reachable cluster", func() {
	It("runs the manager on a control plane with kube-controller-manager and stops everything on interrupt", func(ctx context.Context) {
		dir := GinkgoT().TempDir()
		kubeconfig := filepath.Join(dir, "local", "kubeconfig")
		rl := testenv.StartRunLocal(ctx, dir, kubeconfig)
		Expect(rl.Output()).To(And(
			ContainSubstring("export KUBECONFIG="+kubeconfig),
			ContainSubstring("export PATH="+rl.BinaryDir+":$PATH"),
		))

		children := rl.Children()
		Expect(children).To(ContainElements(ContainSubstring("etcd"), ContainSubstring("kube-apiserver"),
			ContainSubstring("kube-controller-manager"), ContainSubstring("manager")))

		kubectl := func(stdin string, args ...string) (string, error) {
			c := exec.CommandContext(ctx, filepath.Join(rl.BinaryDir, "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
			c.Stdin = strings.NewReader(stdin)
			out, err := c.CombinedOutput()
			return string(out), err
		}
		out, err := kubectl("", "get", "crds", "-o", "name")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(And(
			ContainSubstring("applysets.apply.applyset.dev"),
			ContainSubstring("clusterapplysets.apply.applyset.dev"),
			ContainSubstring("customfeaturegates.features.applyset.dev"),
		))

		c := rl.Client()
		By("a new namespace gets its default ServiceAccount by itself")
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "runlocal-"}}
		Expect(c.Create(ctx, ns)).To(Succeed())
		Eventually(func() error {
			return c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "default"}, &corev1.ServiceAccount{})
		}).WithTimeout(time.Minute).Should(Succeed(), "no default ServiceAccount in %s", ns.Name)

		By("a Deployment member makes its set Ready")
		out, err = kubectl("", "create", "rolebinding", "default-admin", "-n", ns.Name,
			"--clusterrole=cluster-admin", "--serviceaccount="+ns.Name+":default")
		Expect(err).NotTo(HaveOccurred(), out)
		out, err = kubectl(strings.ReplaceAll(deploymentSet, "%s", ns.Name), "apply", "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
		out, err = kubectl("", "wait", "-n", ns.Name, "aset/app", "--for=condition=Ready", "--timeout=2m")
		Expect(err).NotTo(HaveOccurred(), out)
		// The Deployment controller gave the member its status; the ReplicaSet
		// controller made a ReplicaSet owned by it.
		deployment := &appsv1.Deployment{}
		Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "app"}, deployment)).To(Succeed())
		Expect(deployment.Status.ObservedGeneration).To(Equal(deployment.Generation))
		Expect(deployment.Status.Conditions).To(ContainElement(And(
			HaveField("Type", appsv1.DeploymentAvailable), HaveField("Status", corev1.ConditionTrue))))
		replicaSets := &appsv1.ReplicaSetList{}
		Expect(c.List(ctx, replicaSets, client.InNamespace(ns.Name))).To(Succeed())
		Expect(replicaSets.Items).To(HaveLen(1))
		Expect(replicaSets.Items[0].OwnerReferences).To(ContainElement(HaveField("UID", deployment.UID)))

		By("the garbage collector deletes the ReplicaSet once the set has pruned its Deployment")
		out, err = kubectl("", "delete", "-n", ns.Name, "aset/app", "--timeout=2m")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(func() ([]appsv1.ReplicaSet, error) {
			err := c.List(ctx, replicaSets, client.InNamespace(ns.Name))
			return replicaSets.Items, err
		}).WithTimeout(time.Minute).Should(BeEmpty())

		By("a deleted namespace goes away")
		Expect(c.Delete(ctx, ns)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(ns), &corev1.Namespace{}))
		}).WithTimeout(2*time.Minute).Should(BeTrue(), "namespace %s was not removed", ns.Name)

		rl.Interrupt()
		Expect(rl.Output()).To(ContainSubstring("local control plane stopped"))
		for pid, name := range children {
			Expect(running(pid)).To(BeFalse(), "%s (pid %d) outlived run-local", name, pid)
		}
	})
})

// slowManager stands in for a manager busy with a very large input: it
// ignores the interrupts run-local passes on, and so never stops by itself.
const slowManager = `#!/usr/bin/env bash
trap '' INT TERM
echo "Manager started (a stand-in that ignores interrupts)"
exec sleep 600
`

var _ = Describe("run-local's children", func() {
	// startSlow starts run-local with the stand-in manager and returns it
	// with its children: etcd, kube-apiserver, kube-controller-manager and
	// the stand-in.
	startSlow := func(ctx context.Context) (*testenv.RunLocal, map[int]string) {
		GinkgoHelper()
		dir := GinkgoT().TempDir()
		manager := filepath.Join(dir, "slow-manager")
		Expect(os.WriteFile(manager, []byte(slowManager), 0o755)).To(Succeed())
		rl := testenv.StartRunLocalWith(ctx, dir, filepath.Join(dir, "local", "kubeconfig"), []string{manager})
		children := rl.Children()
		// The fourth is the stand-in, under whichever name its exec has reached.
		Expect(children).To(HaveLen(4), "run-local's children: %v", children)
		Expect(children).To(ContainElements("etcd", "kube-apiserver", "kube-controller-manager"), "run-local's children: %v", children)
		return rl, children
	}
	expectGone := func(children map[int]string) {
		GinkgoHelper()
		for pid, name := range children {
			Eventually(func() bool { return running(pid) }).WithTimeout(10*time.Second).WithPolling(100*time.Millisecond).
				Should(BeFalse(), "%s (pid %d) outlived run-local", name, pid)
		}
	}

	It("die with run-local when it is killed, SIGKILL included", func(ctx context.Context) {
		rl, children := startSlow(ctx)
		rl.Signal(syscall.SIGKILL)
		Eventually(rl.Exited()).WithTimeout(5 * time.Second).Should(BeClosed())
		expectGone(children)
	})

	It("stop at once on a second Ctrl-C while the manager is still stopping", func(ctx context.Context) {
		rl, children := startSlow(ctx)
		rl.Signal(syscall.SIGINT)
		Consistently(rl.Exited()).WithTimeout(3*time.Second).ShouldNot(BeClosed(), "the stand-in stopped on the first Ctrl-C")
		rl.Signal(syscall.SIGINT)
		Eventually(rl.Exited()).WithTimeout(5*time.Second).Should(BeClosed(), "a second Ctrl-C left run-local running")
		Expect(rl.Output()).To(ContainSubstring("again: stopping the manager and the control plane at once"))
		expectGone(children)
	})
})

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

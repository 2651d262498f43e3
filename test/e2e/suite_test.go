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

// Package e2e installs the operator into a real single-node cluster from
// a release's assets, as make release writes them: its install.yaml, its
// packaged chart and its image tarball; and checks it as a user would. It runs only inside the
// cluster hack/e2e-cluster.sh starts (`make test-e2e`), which sets
// E2E_CLUSTER_STATE; elsewhere it is skipped.
package e2e

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const (
	namespace  = "applyset-operator-system"
	deployment = "applyset-operator-controller-manager"
	managerSel = "control-plane=controller-manager"
)

// root is the repository, found from the working directory.
var root string

func TestE2E(t *testing.T) {
	if os.Getenv("E2E_CLUSTER_STATE") == "" {
		t.Skip("runs in the cluster of hack/e2e-cluster.sh: make test-e2e")
	}
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(2 * time.Minute)
	SetDefaultEventuallyPollingInterval(time.Second)
	RunSpecs(t, "E2E suite")
}

var _ = BeforeSuite(func() {
	dir, err := os.Getwd()
	Expect(err).NotTo(HaveOccurred())
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "config", "default", "kustomization.yaml")); err == nil {
			break
		}
		Expect(dir).NotTo(Equal(filepath.Dir(dir)), "no repository above the working directory")
	}
	root = dir

	installed = readRelease(cmp.Or(os.Getenv("E2E_DIST"), filepath.Join(root, "dist")))
	By("importing the release's image into the node's containerd")
	installed.importImage()
})

// dumpOnFailure leaves what a person needs to see in the test output.
var _ = ReportAfterEach(func(report SpecReport) {
	if !report.Failed() {
		return
	}
	for _, args := range [][]string{
		{"get", "pods", "-A", "-o", "wide"},
		{"get", "events", "-A", "--sort-by=.lastTimestamp"},
		{"logs", "-n", namespace, "-l", managerSel, "--tail", "60", "--prefix"},
	} {
		out, _, _ := kubectl(args...)
		GinkgoWriter.Printf("$ kubectl %v\n%s\n", args, out)
	}
})

// version is the version the manager under test was built as: E2E_VERSION
// (make test-e2e sets it), or what hack/version.sh says of the checkout.
func version() string {
	if v := os.Getenv("E2E_VERSION"); v != "" {
		return v
	}
	return strings.TrimSpace(run(filepath.Join(root, "hack", "version.sh")))
}

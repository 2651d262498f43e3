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

package install

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

var _ = Describe("kubectl feature-gates", Ordered, func() {
	var pluginDir string

	BeforeAll(func(ctx context.Context) {
		root, err := controlplane.Root()
		Expect(err).NotTo(HaveOccurred())
		pluginDir = GinkgoT().TempDir()
		build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(pluginDir, "kubectl-feature_gates"), "./cmd/kubectl-feature_gates")
		build.Dir = root
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))

		for _, cfg := range []*featuresv1alpha1.CustomFeatureGates{
			{ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"}, Spec: featuresv1alpha1.CustomFeatureGatesSpec{
				Component: "istio",
				FeatureGates: []featuresv1alpha1.FeatureGate{
					{Name: "ReplicasFeatureGate", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.replicas"}},
					{Name: "AnotherFeatureGate", PreRelease: featuresv1alpha1.Beta, Default: ptr.To(true), FieldPaths: []string{".spec.foo", ".spec.bar"}},
				}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.org"}, Spec: featuresv1alpha1.CustomFeatureGatesSpec{
				FeatureGates: []featuresv1alpha1.FeatureGate{
					{Name: "Size", PreRelease: featuresv1alpha1.Stable, FieldPaths: []string{".spec.size"}},
				}}},
		} {
			Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
		}
	})

	// attempt runs the plugin the way a user does: through kubectl, found on PATH.
	attempt := func(ctx context.Context, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, env.KubectlPath(), append([]string{"feature-gates", "--kubeconfig", env.Kubeconfig}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+pluginDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	run := func(ctx context.Context, args ...string) string {
		out, err := attempt(ctx, args...)
		Expect(err).NotTo(HaveOccurred(), out)
		return out
	}

	It("lists every gate as a table, sorted by CRD and gate", func(ctx context.Context) {
		lines := strings.Split(strings.TrimSpace(run(ctx)), "\n")
		Expect(strings.Fields(lines[0])).To(Equal([]string{"CRD", "COMPONENT", "GATE", "STAGE", "DEFAULT", "ENABLED"}))
		// Other specs of the suite may have installed gates too (the samples).
		var ours [][]string
		var keys []string
		for _, line := range lines[1:] {
			fields := strings.Fields(line)
			keys = append(keys, fields[0]+"/"+fields[2])
			if fields[0] == "crontabs.stable.example.com" || fields[0] == "gadgets.example.org" {
				ours = append(ours, fields)
			}
		}
		Expect(slices.IsSorted(keys)).To(BeTrue(), "rows are not sorted by CRD and gate: %v", keys)
		Expect(ours).To(Equal([][]string{
			{"crontabs.stable.example.com", "istio", "AnotherFeatureGate", "Beta", "true", "true"},
			{"crontabs.stable.example.com", "istio", "ReplicasFeatureGate", "Alpha", "<unset>", "false"},
			{"gadgets.example.org", "<none>", "Size", "Stable", "<unset>", "true"},
		}))
	})

	It("filters by CRD and prints names, wide rows and JSON", func(ctx context.Context) {
		Expect(strings.Fields(run(ctx, "gadgets.example.org", "-o", "name"))).To(Equal([]string{"gadgets.example.org/Size"}))
		Expect(run(ctx, "crontabs.stable.example.com", "-o", "wide")).To(ContainSubstring(".spec.foo,.spec.bar"))
		var rows []map[string]any
		Expect(json.Unmarshal([]byte(run(ctx, "gadgets.example.org", "-o", "json")), &rows)).To(Succeed())
		Expect(rows).To(ConsistOf(SatisfyAll(HaveKeyWithValue("gate", "Size"), HaveKeyWithValue("reason", "StableAlwaysOn"),
			HaveKeyWithValue("enabled", true), Not(HaveKey("component")))))
		Expect(json.Unmarshal([]byte(run(ctx, "crontabs.stable.example.com", "-o", "json")), &rows)).To(Succeed())
		Expect(rows).To(HaveEach(HaveKeyWithValue("component", "istio")))
	})

	It("takes kubectl's connection flags: --as acts as another user", func(ctx context.Context) {
		out, err := attempt(ctx, "--as", "someone-without-rights")
		Expect(err).To(HaveOccurred(), out)
		Expect(out).To(ContainSubstring(`User "someone-without-rights" cannot list resource "customfeaturegates"`))
	})
})

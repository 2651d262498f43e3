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

package applysets

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

var _ = Describe("Per-set budgets", func() {
	// Artifacts of a few KB, once compressed, whose builds would hold
	// gigabytes: each stalls its own set, and another tenant's set turns
	// Ready meanwhile.
	DescribeTable("stall a set whose build would pass a bound, naming it, while other sets go on",
		func(ctx context.Context, files map[string]string, message string) {
			ns, reg := newNamespace(ctx), newTestRegistry("", "")
			reg.push(ctx, "app", "v1", files, "", "")
			set := ociSet(ns, "hostile", applyv1alpha1.OCISource{URL: reg.url("app"), Tag: "v1"}, "")
			set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("inline", "v")}
			Expect(k8sClient.Create(ctx, set)).To(Succeed())
			other := newSet(newNamespace(ctx), "other", inlineConfigMap("other", "v"))
			Expect(k8sClient.Create(ctx, other)).To(Succeed())

			Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(And(
				HaveField("Status", metav1.ConditionTrue),
				HaveField("Reason", applyv1alpha1.ReasonBudgetExceeded),
				HaveField("Message", And(ContainSubstring("spec.sources[0]"), ContainSubstring(message)))))
			Expect(condition(ctx, set, applyv1alpha1.ConditionReady)()).To(HaveField("Reason", applyv1alpha1.ReasonBudgetExceeded))
			Expect(configMapExists(ctx, set.Namespace, "inline")).To(BeFalse(), "a set over its budget applied something")
			readyFor(ctx, other)
		},
		Entry("a generator naming a 1 MiB file 40 times", map[string]string{
			"big.txt": strings.Repeat("x", 1<<20),
			"kustomization.yaml": "configMapGenerator:\n- name: x\n  files: [" +
				strings.Join(numberedRefs("k%d=big.txt", 40), ", ") + "]\n",
		}, "the root kustomization would produce more than 16 MiB"),
		Entry("a patch copying a value onto itself 16 times", map[string]string{
			"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: " + strings.Repeat("z", 64<<10) + "\n",
			"kustomization.yaml": "resources: [cm.yaml]\npatches:\n- target: {kind: ConfigMap}\n  patch: |\n" +
				strings.Join(numberedRefs("    - {op: copy, from: /data, path: /data/c%d}", 16), "\n") + "\n",
		}, "building kustomization.yaml: the build needs more than 256 MiB of memory"),
	)
})

func numberedRefs(format string, n int) []string {
	refs := make([]string, n)
	for i := range refs {
		refs[i] = fmt.Sprintf(format, i)
	}
	return refs
}

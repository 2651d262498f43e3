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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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

var _ = Describe("A set's status within etcd's bound", func() {
	It("applies nothing when its spec leaves no room for its status, and says how large it is", func(ctx context.Context) {
		ns := newNamespace(ctx)
		// 300 ConfigMaps of 4 KiB each, inline: 1.2 MiB of spec, which etcd
		// stores, but with no room left for the set's plan and status.
		resources := make([]applyv1alpha1.Resource, 300)
		for i := range resources {
			resources[i] = inlineConfigMap(fmt.Sprintf("cm-%d", i), strings.Repeat("v", 4<<10))
		}
		set := newSet(ns, "large", resources...)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())

		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(And(
			HaveField("Reason", applyv1alpha1.ReasonBudgetExceeded),
			HaveField("Message", And(ContainSubstring("the set would record 300 members"), ContainSubstring("with its spec and metadata (1.2 MiB)"),
				ContainSubstring("more than the 1.3 MiB one object may take in etcd, so nothing was applied or pruned")))))
		list := &corev1.ConfigMapList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		Expect(list.Items).To(BeEmpty(), "a ConfigMap of the set was applied")
	})
})

var _ = Describe("A set's health-check budget", func() {
	It("stalls a set whose checks cost more than its budget in one reconcile, judging no more", func(ctx context.Context) {
		ns := newNamespace(ctx)
		// Each check compares every pair of a member's 300 keys: about 720,000 of CEL's units, some 70 ms.
		data := map[string]any{}
		for i := range 300 {
			data[fmt.Sprintf("k%03d", i)] = "v"
		}
		var members []applyv1alpha1.Resource
		for i := range 20 {
			obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("pairs-%d", i)}, "data": data}
			res, err := applyv1alpha1.NewResource(obj)
			Expect(err).NotTo(HaveOccurred())
			members = append(members, res)
		}
		set := newSet(ns, "costly", members...)
		set.Spec.HealthChecks = []applyv1alpha1.HealthCheck{{APIVersion: "v1", Kind: "ConfigMap",
			Current: "self.data.all(a, self.data.all(b, a == b || self.data[a] == self.data[b]))"}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())

		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(And(
			HaveField("Reason", applyv1alpha1.ReasonBudgetExceeded),
			HaveField("Message", ContainSubstring("the set's health checks cost more than 2000000 (about 200ms of CPU) in one reconcile"))))
	})
})

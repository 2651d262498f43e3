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
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

var _ = Describe("A set taking over what kubectl apply wrote", func() {
	It("hands the client-side apply's ownership over and says so, leaving the fields it never declared", func(ctx context.Context) {
		ns := newNamespace(ctx)
		out, err := env.Kubectl(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: legacy}, data: {k: '1', old: 'x'}}",
			"apply", "-n", ns, "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
		set := newSet(ns, "takeover", inlineConfigMap("legacy", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "legacy"}, cm)).To(Succeed())
		Expect(cm.Annotations).NotTo(HaveKey(apply.LastAppliedAnnotation))
		Expect(cm.ManagedFields).NotTo(ContainElement(HaveField("Manager", "kubectl-client-side-apply")))
		Expect(cm.Data).To(HaveKeyWithValue("old", "x"), "a field the set never declared was removed")
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, set.Name)).Should(ContainElement("Normal/" + ReasonOwnershipHandedOver))
	})

	It("takes over 200 ConfigMaps kubectl applied, then removes a key from each without recreating any", func(ctx context.Context) {
		const count = 200
		ns := newNamespace(ctx)
		var legacy strings.Builder
		declared := make([]applyv1alpha1.Resource, 0, count)
		dropped := make([]applyv1alpha1.Resource, 0, count)
		for i := range count {
			name := fmt.Sprintf("cm-%03d", i)
			fmt.Fprintf(&legacy, "---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: %s}, data: {keep: '1', drop: '2'}}\n", name)
			declared = append(declared, object(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": name}, "data": map[string]any{"keep": "1", "drop": "2"}}))
			dropped = append(dropped, object(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": name}, "data": map[string]any{"keep": "1"}}))
		}
		out, err := env.Kubectl(ctx, legacy.String(), "apply", "-n", ns, "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
		uids := map[string]types.UID{}
		list := &corev1.ConfigMapList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		for _, cm := range list.Items {
			if strings.HasPrefix(cm.Name, "cm-") {
				Expect(cm.Annotations).To(HaveKey(apply.LastAppliedAnnotation), cm.Name)
				Expect(cm.ManagedFields).To(ContainElement(HaveField("Manager", "kubectl-client-side-apply")), cm.Name)
				uids[cm.Name] = cm.UID
			}
		}
		Expect(uids).To(HaveLen(count))

		set := newSet(ns, "many", declared...)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(set.Status.MemberCount).To(HaveValue(BeEquivalentTo(count)))

		updateSet(ctx, set, func(s *applyv1alpha1.ApplySet) { s.Spec.Resources = dropped })
		readyFor(ctx, set)

		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		seen := 0
		for _, cm := range list.Items {
			uid, ok := uids[cm.Name]
			if !ok {
				continue
			}
			seen++
			Expect(cm.UID).To(Equal(uid), "%s was recreated", cm.Name)
			Expect(cm.Data).To(Equal(map[string]string{"keep": "1"}), cm.Name)
			Expect(cm.Annotations).NotTo(HaveKey(apply.LastAppliedAnnotation), cm.Name)
			Expect(cm.ManagedFields).NotTo(ContainElement(HaveField("Manager", "kubectl-client-side-apply")), cm.Name)
		}
		Expect(seen).To(Equal(count), "an adopted ConfigMap is gone")
	})
})

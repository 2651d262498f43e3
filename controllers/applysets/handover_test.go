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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
})

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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// parentTypeLabel marks a CRD whose objects may be ApplySet parents (KEP-3659, kubectl's key).
const parentTypeLabel = "applyset.kubernetes.io/is-parent-type"

var _ = Describe("The installed CRDs", func() {
	DescribeTable("are established with their names and scope",
		func(ctx context.Context, name, kind, shortName string, scope apiextensionsv1.ResourceScope, parentType bool) {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, crd)).To(Succeed())

			Expect(crd.Status.Conditions).To(ContainElement(SatisfyAll(
				HaveField("Type", apiextensionsv1.Established),
				HaveField("Status", apiextensionsv1.ConditionTrue),
			)), "CRD %s is not established", name)
			Expect(crd.Spec.Names.Kind).To(Equal(kind))
			Expect(crd.Spec.Names.ShortNames).To(ContainElement(shortName))
			Expect(crd.Spec.Scope).To(Equal(scope))

			if parentType {
				Expect(crd.Labels).To(HaveKeyWithValue(parentTypeLabel, "true"),
					"kubectl accepts %s objects as ApplySet parents only with this label", kind)
			} else {
				Expect(crd.Labels).NotTo(HaveKey(parentTypeLabel))
			}
		},
		Entry("ApplySet", "applysets.apply.applyset.dev", "ApplySet", "aset", apiextensionsv1.NamespaceScoped, true),
		Entry("ClusterApplySet", "clusterapplysets.apply.applyset.dev", "ClusterApplySet", "caset", apiextensionsv1.ClusterScoped, true),
		Entry("CustomFeatureGates", "customfeaturegates.features.applyset.dev", "CustomFeatureGates", "cfg", apiextensionsv1.ClusterScoped, false),
	)
})

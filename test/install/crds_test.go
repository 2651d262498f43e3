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
	"strings"

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

var _ = Describe("kubectl explain of CustomFeatureGates", func() {
	explain := func(ctx context.Context, field string) string {
		GinkgoHelper()
		var out string
		// The API server publishes a new CRD's OpenAPI a little after it is established.
		Eventually(func() error {
			var err error
			out, err = env.Kubectl(ctx, "", "explain", field)
			return err
		}).Should(Succeed())
		return strings.Join(strings.Fields(out), " ")
	}

	It("says what turning a gate off does to stored objects, and that flipping is a data decision", func(ctx context.Context) {
		enabled := explain(ctx, "customfeaturegates.spec.featureGates.enabled")
		Expect(enabled).To(ContainSubstring("Turning a gate off changes no stored object"))
		Expect(enabled).To(ContainSubstring("a create drops the gate's fields, and an update drops them unless the stored object has them: " +
			"then the stored value is kept, and the update can neither change nor remove it"))
		Expect(enabled).To(ContainSubstring("values dropped while it was off are gone"))
		Expect(enabled).To(ContainSubstring("it is a data decision"))
	})

	It("says whom the gates serve", func(ctx context.Context) {
		Expect(explain(ctx, "customfeaturegates.spec.component")).To(ContainSubstring("whom the gates serve"))
	})
})

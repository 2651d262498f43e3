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

package reliability

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Parents written by other tools are input too: the parent reconciler must
// judge a huge or malformed hint, report it, and change nothing.
var _ = Describe("Hostile hints on parents of other tools", Ordered, func() {
	BeforeAll(func() { env.StartManager(setupOperator) })

	// kubectlParent creates a Secret parent as kubectl writes one, with the
	// given hint, and a ConfigMap member of its set that the hint may omit.
	kubectlParent := func(ctx context.Context, hint string) (string, *corev1.Secret) {
		ns := tenantNamespace(ctx)
		id := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: ns, Name: "parent"}.ID()
		parent := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "parent",
			Labels:      map[string]string{applyset.IDLabel: id},
			Annotations: map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: hint}}}
		Expect(k8sClient.Create(ctx, parent)).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "member",
			Labels: map[string]string{applyset.PartOfLabel: id}}})).To(Succeed())
		return ns, parent
	}

	It("judges a hint of 10,000 kinds, finding the kind it omits", func(ctx context.Context) {
		kinds := make([]string, 10000)
		for i := range kinds {
			kinds[i] = fmt.Sprintf("Kind%d.g%d.example.com", i, i%100)
		}
		ns, parent := kubectlParent(ctx, strings.Join(kinds, ","))
		Eventually(warnings(ctx, ns, parent.Name)).Should(ContainElement(membership.ReasonHintIncomplete))
		Expect(k8sClient.Get(ctx, keyOf(parent), parent)).To(Succeed())
		Expect(parent.Annotations[applyset.GroupKindsAnnotation]).To(Equal(strings.Join(kinds, ",")), "another tool's hint was changed")
	})

	It("reports a malformed hint and leaves it as it is", func(ctx context.Context) {
		const malformed = "ConfigMap,,Deployment..apps,not a kind"
		ns, parent := kubectlParent(ctx, malformed)
		Eventually(warnings(ctx, ns, parent.Name)).Should(ContainElement(applyset.ReasonHintInvalid))
		Expect(k8sClient.Get(ctx, keyOf(parent), parent)).To(Succeed())
		Expect(parent.Annotations[applyset.GroupKindsAnnotation]).To(Equal(malformed))
		Expect(k8sClient.Get(ctx, keyOf(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "member"}}),
			&corev1.ConfigMap{})).To(Succeed(), "a member of a set with a malformed hint was deleted")
	})
})

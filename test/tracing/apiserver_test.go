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

package tracing

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// operator is the service.name of the operator's spans.
const operator = "applyset-operator"

var _ = Describe("A reconcile's trace", func() {
	It("has the phases as children of the reconcile, and the API server's spans as children of the operator's requests", func(ctx context.Context) {
		ns, err := testenv.TenantNamespace(ctx, env.Client, "traced-")
		Expect(err).NotTo(HaveOccurred())
		cm, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}})
		Expect(err).NotTo(HaveOccurred())
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
		set.Spec.Resources = []applyv1alpha1.Resource{cm}
		Expect(env.Client.Create(ctx, set)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			g.Expect(apimeta.IsStatusConditionTrue(set.Status.Conditions, applyv1alpha1.ConditionReady)).To(BeTrue())
			g.Expect(set.Status.History).NotTo(BeEmpty())
		}).Should(Succeed())
		traceID := set.Status.History[0].TraceID
		Expect(traceID).To(MatchRegexp(`^[0-9a-f]{32}$`), "the history names no trace")

		var spans []span
		Eventually(func(g Gomega) {
			spans = collector.trace(traceID)
			g.Expect(spans).To(ContainElement(HaveField("Service", Not(Equal(operator)))), "no span of the API server arrived")
			g.Expect(spans).To(ContainElement(HaveField("Name", "Reconcile ApplySet")))
		}).Should(Succeed())
		reconcile, _ := collector.find(func(s span) bool { return s.TraceID == traceID && s.Name == "Reconcile ApplySet" })
		Expect(reconcile.Attributes).To(HaveKeyWithValue("applyset.name", "web"))
		Expect(reconcile.ParentSpanID).To(BeEmpty(), "the reconcile is the root of its trace")

		By("running each phase in a child of the reconcile")
		for _, phase := range []string{"actor", "windows", "run"} {
			Expect(spans).To(ContainElement(SatisfyAll(HaveField("Name", phase), HaveField("ParentSpanID", reconcile.SpanID))),
				"phase %s is no child of the reconcile", phase)
		}

		By("joining the API server's spans to the operator's requests")
		requests := map[string]span{}
		for _, s := range spans {
			if s.Service == operator && strings.Contains(s.Name, " /api") {
				requests[s.SpanID] = s
			}
		}
		Expect(requests).NotTo(BeEmpty(), "the operator's requests made no spans")
		joined := 0
		for _, s := range spans {
			if _, ok := requests[s.ParentSpanID]; ok && s.Service != operator {
				joined++
			}
		}
		Expect(joined).To(BeNumerically(">", 0), "no span of the API server has an operator's request as its parent: %v", spans)

		waterfall(ctx, spans)
	})
})

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

package featuregates

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// A policy the API server refuses to store: the name of a CRD of 250
// characters, allowed, makes a policy name longer than the 253 the API server
// takes. The refusal is the gates' status and an Event, not a log line.
var _ = Describe("A policy the API server refuses", func() {
	It("is reported in the Ready condition and a Warning Event", func(ctx context.Context) {
		group := strings.Repeat("g", 60) + "." + strings.Repeat("r", 60) + "." + strings.Repeat("o", 60) + "." +
			strings.Repeat("u", 48) + ".example.com"
		crd := testenv.OpenCRD(group, "Thing")
		Expect(crd.Name).To(HaveLen(250))
		cfg := createGated(ctx, crd, featuresv1alpha1.FeatureGate{Name: "A", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.a"}})

		stop := runOperator(BackendPolicy)
		DeferCleanup(stop)
		Eventually(ready(ctx, cfg)).Should(SatisfyAll(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", ReasonPolicyFailed),
			HaveField("Message", ContainSubstring("must be no more than 253 characters"))))
		Eventually(func(g Gomega) {
			list := &eventsv1.EventList{}
			g.Expect(k8sClient.List(ctx, list)).To(Succeed())
			g.Expect(list.Items).To(ContainElement(SatisfyAll(HaveField("Regarding.Name", crd.Name), HaveField("Type", "Warning"),
				HaveField("Reason", ReasonPolicyFailed),
				// cut to the 1,024 bytes an Event's note may have
				HaveField("Note", SatisfyAll(ContainSubstring("writing the admission policies that enforce them failed"), HaveLen(1024))))))
		}).Should(Succeed())
	})
})

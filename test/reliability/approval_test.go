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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// A plan waits for approval while the operator is down: the approval is
// written while no operator runs, and a new one applies exactly it, once.
// Everything the approval needs is in the set's status, nothing in memory.
var _ = Describe("The operator restarted between a plan and its approval", func() {
	It("applies the approved plan once, and loses nothing", func(ctx context.Context) {
		ns := tenantNamespace(ctx)
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gated"}}
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		set.Spec.Resources = declare(20, ns)
		stop := runOperator()
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		reason := readyReason(ctx, set)
		Eventually(reason).Should(Equal(applyv1alpha1.ReasonAwaitingApproval))
		digest := set.Status.Plan.Digest
		Expect(stop()).To(Succeed())

		By("approving while no operator runs")
		approve(ctx, set, digest)
		Expect(lost(ctx, set.Status.ApplySetID, 20, ns, ns)).To(Equal(20), "the plan was applied before its approval")

		By("a new operator applying it, once")
		stop = runOperator()
		DeferCleanup(func() { Expect(stop()).To(Succeed()) })
		Eventually(reason).Should(Equal(applyv1alpha1.ReasonSucceeded))
		Expect(set.Status.Approval.Sequence).To(Equal(ptr.To[int64](1)))
		Expect(set.Status.Approval.LastApplied).To(Equal(digest))
		Expect(lost(ctx, set.Status.ApplySetID, 20, ns, ns)).To(BeZero(), fmt.Sprintf("members missing after the approved apply: %+v", set.Status.Plan))
	})
})

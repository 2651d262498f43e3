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

package validation

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// Without the operator, no webhook names approvers here: these are the
// approval policy's own answers to what a request writes.
var _ = Describe("The approved-by annotation", func() {
	const policy, refusal = "applyset-approval", "apply.applyset.dev/approved-by names the digest a request approves"
	digest := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }

	It("takes only the digest the request approves and the request's own user", func(ctx context.Context) {
		grant(ctx, "alice", home, "apply.applyset.dev", []string{"applysets"}, nil, []string{"create", "update", "get", "approve"})
		alice := asUser("alice")
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: home, GenerateName: "approved-"}}
		set.Spec.Approval = applyv1alpha1.ApprovalManual
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		write := func(c client.Client, plan, by string) error {
			latest := &applyv1alpha1.ApplySet{}
			Expect(c.Get(ctx, client.ObjectKeyFromObject(set), latest)).To(Succeed())
			latest.Spec.ApprovedPlan = ptr.To(plan)
			latest.Annotations = map[string]string{applyv1alpha1.ApprovedByAnnotation: by}
			if by == "" {
				latest.Annotations = nil
			}
			return c.Update(ctx, latest)
		}

		Expect(write(alice, digest("a"), digest("a")+" alice")).To(Succeed(), "an approver naming themselves and the digest they approve")
		forbiddenByPolicy(write(alice, digest("b"), digest("b")+" bob"), policy, refusal)
		forbiddenByPolicy(write(alice, digest("a"), digest("a")+" carol"), policy, refusal)
		forbiddenByPolicy(write(alice, digest("a"), ""), policy, refusal)
		Expect(write(k8sClient, digest("c"), digest("a")+" alice")).To(Succeed(),
			"an approval that leaves the name as it was, which names an earlier digest")

		By("refusing a create that names someone else")
		forged := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: home, GenerateName: "forged-",
			Annotations: map[string]string{applyv1alpha1.ApprovedByAnnotation: digest("a") + " bob"}}}
		forged.Spec.Approval, forged.Spec.ApprovedPlan = applyv1alpha1.ApprovalManual, ptr.To(digest("a"))
		forbiddenByPolicy(alice.Create(ctx, forged, client.DryRunAll), policy, refusal)
	})
})

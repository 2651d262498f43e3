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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// Sets acting as one ServiceAccount share the answers to their permission
// checks for DefaultPermissionTTL; a change to RBAC drops them at once.
var _ = Describe("Permission answers shared by the sets of one identity", func() {
	It("see a revoked permission at once: the next set is refused before it writes, not after", func(ctx context.Context) {
		ns := newNamespace(ctx)
		first := newSet(ns, "first", inlineConfigMap("a", "1"))
		Expect(k8sClient.Create(ctx, first)).To(Succeed())
		readyFor(ctx, first)

		By("taking the ServiceAccount's writes away, well within the answers' lifetime; it may still read")
		role := &rbacv1.Role{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "everything"}, role)).To(Succeed())
		role.Rules = []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}}
		Expect(k8sClient.Update(ctx, role)).To(Succeed())
		// The API server's own authorizer sees it a moment later.
		Eventually(func(g Gomega) {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User:               "system:serviceaccount:" + ns + ":default",
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "configmaps", Namespace: ns}}}
			g.Expect(k8sClient.Create(ctx, review)).To(Succeed())
			g.Expect(review.Status.Allowed).To(BeFalse())
		}).Should(Succeed())

		late := newSet(ns, "late", inlineConfigMap("c", "1"))
		Expect(k8sClient.Create(ctx, late)).To(Succeed())
		Eventually(condition(ctx, late, applyv1alpha1.ConditionReady)).Should(accessDenied("ServiceAccount "+ns+"/default",
			`create[^;]* configmaps in namespace `+ns))
		// A reused answer would have let the engine try the write, and the
		// API server's refusal would have been retried, then reported as a
		// failed apply.
		Consistently(testenv.EventReasons(ctx, k8sClient, ns, "late")).WithTimeout(2 * time.Second).
			ShouldNot(ContainElement("Warning/" + applyv1alpha1.ReasonApplyFailed))
		Expect(configMapExists(ctx, ns, "c")).To(BeFalse())
	})
})

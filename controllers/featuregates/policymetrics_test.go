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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// mutatingPolicyChecks is the API server's counter of mutating admission
// policy evaluations (k8s.io/apiserver, pkg/admission/plugin/policy/mutating/metrics):
// labels policy, policy_binding and error_type.
const mutatingPolicyChecks = "apiserver_mutating_admission_policy_check_total"

// policyCheckCounterSpec shows the figure the README gives for drops under
// policies: a policy cannot count its drops, but the API server counts its
// evaluations, one per mutation (one mutation per disabled path) of every
// request that passes the match condition.
func policyCheckCounterSpec(backend Backend) {
	It("under policies, moves the API server's per-policy check counter for a request with a disabled field only", func(ctx context.Context) {
		if backend != BackendPolicy {
			Skip("the webhook counts its drops in applyset_operator_featuregate_dropped_fields_total")
		}
		policy := cronTabsPolicy(ctx)()
		Expect(policy).NotTo(BeNil())
		checks := func() float64 {
			GinkgoHelper()
			n, err := testenv.CounterSum(ctx, env.Config, mutatingPolicyChecks,
				map[string]string{"policy": policy.Name, "error_type": "no_error"})
			Expect(err).NotTo(HaveOccurred())
			return n
		}
		// The operator's probes of the policy are counted too: wait for them to settle.
		var before float64
		Eventually(func() bool {
			before = checks()
			time.Sleep(time.Second)
			return checks() == before
		}).Should(BeTrue())

		quiet := cronTab("quiet", "{cronSpec: '* * * * */5'}")
		Expect(k8sClient.Create(ctx, quiet, client.DryRunAll)).To(Succeed())
		Expect(checks()).To(Equal(before), "a request without a disabled field passed the match condition")

		dropped := cronTab("counted", "{cronSpec: '* * * * */5', replicas: 3}")
		Expect(k8sClient.Create(ctx, dropped, client.DryRunAll)).To(Succeed())
		Expect(dropped.Object["spec"]).NotTo(HaveKey("replicas"))
		Expect(checks()-before).To(BeEquivalentTo(len(policy.Spec.Mutations)),
			"one evaluation per mutation of the policy, whatever each mutation removed")
	})
}

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

package main

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var _ = Describe("--featuregate-backend", func() {
	It("is policy under auto where the API server serves MutatingAdmissionPolicies and the operator may write them, and as given otherwise", func(ctx context.Context) {
		env := testenv.StartForSpecs(ctx)
		backend := func(cfg *rest.Config, flag string) (featuregates.Backend, []string) {
			GinkgoHelper()
			b, missing, err := featureGateBackend(ctx, cfg, flag)
			Expect(err).NotTo(HaveOccurred())
			return b, missing
		}
		Expect(backend(env.Config, "auto")).To(Equal(featuregates.BackendPolicy))
		Expect(backend(env.Config, "webhook")).To(Equal(featuregates.BackendWebhook))
		Expect(backend(env.Config, "policy")).To(Equal(featuregates.BackendPolicy))
		_, _, err := featureGateBackend(ctx, env.Config, "cel")
		Expect(err).To(MatchError(ContainSubstring("want auto, policy or webhook")))

		By("an operator without config/components/policy-backend")
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: "operator-without-policy-rights"}
		b, missing := backend(cfg, "auto")
		Expect(b).To(Equal(featuregates.BackendWebhook), "auto falls back to the webhook")
		Expect(missing).To(HaveLen(len(featuregates.PolicyRights())))
		Expect(missing).To(ContainElement("create mutatingadmissionpolicies"))
		b, missing = backend(cfg, "policy")
		Expect(b).To(Equal(featuregates.BackendPolicy), "an explicit policy backend stays, and says what it lacks")
		Expect(missing).To(ContainElement("patch mutatingadmissionpolicybindings"))
	})
})

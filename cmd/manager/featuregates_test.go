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

	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var _ = Describe("--featuregate-backend", func() {
	It("is policy under auto where the API server serves MutatingAdmissionPolicies, and as given otherwise", func(ctx context.Context) {
		env := testenv.StartForSpecs(ctx)
		Expect(featureGateBackend(env.Config, "auto")).To(Equal(featuregates.BackendPolicy))
		Expect(featureGateBackend(env.Config, "webhook")).To(Equal(featuregates.BackendWebhook))
		Expect(featureGateBackend(env.Config, "policy")).To(Equal(featuregates.BackendPolicy))
		_, err := featureGateBackend(env.Config, "cel")
		Expect(err).To(MatchError(ContainSubstring("want auto, policy or webhook")))
	})
})

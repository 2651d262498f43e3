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
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
)

var (
	env       *testenv.Env
	k8sClient client.Client
)

func TestFeatureGates(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CustomFeatureGates reconciler suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	env = testenv.StartForSpecs(ctx)
	k8sClient = env.Client
})

// startOperator runs the operator's feature gate controllers with backend
// until the calling node's scope ends. The webhook is served and its
// registrar runs under both backends, as in the manager.
func startOperator(backend Backend) {
	GinkgoHelper()
	env.StartManager(func(mgr ctrl.Manager) error {
		if err := SetupWithManager(mgr, Options{WebhookConfiguration: DefaultConfigurationName, Backend: backend}); err != nil {
			return err
		}
		return SetupWebhook(mgr, mgr.GetWebhookServer(), &Registrar{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(),
			Endpoint: webhooks.Endpoint{URL: env.WebhookURL(), CABundle: env.WebhookCA()}, Backend: backend})
	})
}

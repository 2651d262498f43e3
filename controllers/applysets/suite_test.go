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
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/applyset-operator/applyset-operator/controllers/parents"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
)

var (
	env       *testenv.Env
	k8sClient client.Client
)

func TestApplySets(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "ApplySet reconciler suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	env = testenv.StartForSpecs(ctx)
	k8sClient = env.Client
	// Flux's source CRDs, copied from source-controller's module: see testdata/fluxcrds.
	// And a Certificate-like kind for dependsOn entries that name any object.
	_, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{Paths: []string{filepath.Join("testdata", "fluxcrds"),
		filepath.Join("testdata", "dependencycrds")}, ErrorIfPathMissing: true})
	Expect(err).NotTo(HaveOccurred())
	// The operator as it runs: both set reconcilers and the parent reconciler,
	// which verifies the operator's own sets and must never fight them.
	env.StartManagerWith(func(o *ctrl.Options) { CacheOptions(&o.Cache) }, func(mgr ctrl.Manager) error {
		artifactPolicy, err := fetchpolicy.Parse(testArtifactHosts)
		if err != nil {
			return err
		}
		// A health-check budget of two evaluations at CEL's limit, so that the
		// spec spending it takes seconds under the race detector, not minutes.
		if err := SetupWithManager(mgr, Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default", ArtifactPolicy: artifactPolicy,
			HealthCheckBudget: 2_000_000, Clock: specClock, MinInterval: time.Second, InventoryNamespace: operatorNamespace,
			InventoryLayout: inventory.Layout{Inline: testLayout.inline, PerChunk: testLayout.perChunk}}); err != nil {
			return err
		}
		if err := SetupWebhook(mgr, mgr.GetWebhookServer(), &Registrar{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(),
			Endpoint: webhooks.Endpoint{URL: env.WebhookURL(), CABundle: env.WebhookCA()}}); err != nil {
			return err
		}
		return parents.SetupWithManager(mgr, parents.Options{OrphanPolicy: parents.OrphanReport, Resync: time.Hour})
	})
})

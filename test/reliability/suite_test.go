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

// Package reliability holds the suites that show the operator keeps its
// promises when the world misbehaves: every scenario ends by counting wrong
// deletions and lost members, and both must be zero.
package reliability

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/controllers/parents"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var (
	env       *testenv.Env
	k8sClient client.Client
	// etcdLink carries everything between kube-apiserver and etcd, so that
	// a spec can slow it down.
	etcdLink *testenv.Proxy
)

func TestReliability(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Reliability suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	env = testenv.StartForSpecsWith(ctx, controlplane.Options{EtcdFront: func(etcd string) (string, error) {
		var err error
		if etcdLink, err = testenv.StartProxy(etcd); err != nil {
			return "", err
		}
		// Registered before the control plane's own cleanup, so it runs after it.
		DeferCleanup(etcdLink.Cut)
		return etcdLink.Addr, nil
	}})
	k8sClient = env.Client
})

// setupOperator sets a manager up as the operator runs: both set reconcilers
// and the parent reconciler.
func setupOperator(mgr ctrl.Manager) error {
	if err := applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default", MinInterval: time.Second}); err != nil {
		return err
	}
	return parents.SetupWithManager(mgr, parents.Options{OrphanPolicy: parents.OrphanReport, Resync: time.Hour})
}

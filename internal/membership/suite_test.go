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

package membership

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var (
	env       *testenv.Env
	k8sClient client.Client
)

func TestMembership(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Membership index suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	env = testenv.StartForSpecs(ctx)
	k8sClient = env.Client
})

// newIndex makes an index against the test control plane.
func newIndex() *Index { return New(testOptions("membership")) }

// newParents makes a parent tracker against the test control plane.
func newParents() *Parents { return NewParents(testOptions("parents")) }

func testOptions(log string) Options {
	disco, err := discovery.NewDiscoveryClientForConfig(env.Config)
	Expect(err).NotTo(HaveOccurred())
	meta, err := metadata.NewForConfig(env.Config)
	Expect(err).NotTo(HaveOccurred())
	return Options{Discovery: disco, Metadata: meta, Log: logf.Log.WithName(log)}
}

// start runs an index or a parent tracker until the spec ends and waits for
// its first lists.
func start(ctx context.Context, w interface {
	Start(context.Context) error
	HasSynced() bool
}) {
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	DeferCleanup(cancel)
	Expect(w.Start(runCtx)).To(Succeed())
	Eventually(w.HasSynced).WithTimeout(30 * time.Second).Should(BeTrue())
}

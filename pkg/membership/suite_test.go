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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

var (
	cp        *controlplane.ControlPlane
	k8sClient client.Client
)

func TestMembership(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Membership index suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	var err error
	cp, err = controlplane.Start(ctx)
	Expect(err).NotTo(HaveOccurred())
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	k8sClient, err = client.New(cp.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if cp != nil {
		Expect(cp.Stop()).To(Succeed())
	}
})

// newIndex makes an index against the test control plane.
func newIndex() *Index {
	disco, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	Expect(err).NotTo(HaveOccurred())
	meta, err := metadata.NewForConfig(cp.Config)
	Expect(err).NotTo(HaveOccurred())
	return New(Options{Discovery: disco, Metadata: meta, Log: logf.Log.WithName("membership")})
}

// start runs idx until the spec ends and waits for its first lists.
func start(ctx context.Context, idx *Index) {
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	DeferCleanup(cancel)
	Expect(idx.Start(runCtx)).To(Succeed())
	Eventually(idx.HasSynced).WithTimeout(30 * time.Second).Should(BeTrue())
}

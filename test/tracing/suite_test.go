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

// Package tracing holds the specs of the operator's traces joined to
// kube-apiserver's own: an API server started with a TracingConfiguration
// and the operator export to one OTLP receiver inside the test.
package tracing

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/internal/tracing"
)

var (
	env       *testenv.Env
	collector = &receiver{}
)

func TestTracing(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Tracing suite")
}

// apiServerTracing has kube-apiserver sample every request and export its
// spans to endpoint over OTLP gRPC.
const apiServerTracing = `apiVersion: apiserver.config.k8s.io/v1
kind: TracingConfiguration
endpoint: %s
samplingRatePerMillion: 1000000
`

var _ = BeforeSuite(func(ctx context.Context) {
	addr, stop, err := collector.serve()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stop)
	env = testenv.StartForSpecsWith(ctx, controlplane.Options{Tracing: fmt.Sprintf(apiServerTracing, addr)})

	// The operator's traces on, as its Deployment turns them on: the
	// OTEL_* variables, read by tracing.Setup.
	for k, v := range map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + addr, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_BSP_SCHEDULE_DELAY": "100"} {
		Expect(os.Setenv(k, v)).To(Succeed())
		DeferCleanup(os.Unsetenv, k)
	}
	shutdown, err := tracing.Setup(ctx, "applyset-operator")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		Expect(shutdown(flush)).To(Succeed())
	})
	stopManager, err := env.RunManagerAs(tracing.WrapConfig(rest.CopyConfig(env.Config)), nil, func(mgr ctrl.Manager) error {
		return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stopManager)
})

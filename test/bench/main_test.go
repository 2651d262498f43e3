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

// Package bench measures the operator against a real API server: the set
// reconciler beside kubectl, the parent reconciler and the membership index,
// and the feature-gate webhook's cost on creates. Run it with `make bench`.
// The figures are reported with b.ReportMetric; nothing here asserts a time.
package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/applyset-operator/applyset-operator/controllers/parents"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var (
	env       *testenv.Env
	cp        *testenv.Env // the control plane, under the name the benchmarks use
	k8sClient client.Client
	scheme    *runtime.Scheme
	startOnce sync.Once
	startErr  error
	tempDir   string
	// atExit stops what the benchmarks started for the rest of the
	// process, such as other projects' controllers, before the control plane.
	atExit []func()
)

func TestMain(m *testing.M) {
	// The operator's logs would drown the figures.
	ctrl.SetLogger(logr.Discard())
	dir, err := os.MkdirTemp("", "bench-")
	if err != nil {
		panic(err)
	}
	tempDir = dir
	code := m.Run()
	for _, stop := range atExit {
		stop()
	}
	if env != nil {
		_ = env.Stop()
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// controlPlane starts the shared control plane on first use.
func controlPlane(b *testing.B) {
	b.Helper()
	startOnce.Do(func() {
		env, startErr = testenv.Start(context.Background(), tempDir)
		if startErr == nil {
			cp, k8sClient, scheme = env, env.Client, env.Scheme
		}
	})
	if startErr != nil {
		b.Fatal(startErr)
	}
}

// countingTransport counts the API requests the operator makes.
type countingTransport struct {
	next  http.RoundTripper
	count *atomic.Int64
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.count.Add(1)
	return t.next.RoundTrip(req)
}

// startOperator runs the parent reconciler and returns a counter of its requests.
func startOperator(b *testing.B, opts parents.Options) *atomic.Int64 {
	b.Helper()
	count := &atomic.Int64{}
	cfg := rest.CopyConfig(cp.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{next: rt, count: count} })
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:     scheme,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := parents.SetupWithManager(mgr, opts); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("the operator stopped with an error: %v", err)
		}
	})
	return count
}

// createKind installs kind's CRD and waits until objects of it can be created.
func createKind(ctx context.Context, b *testing.B, kind string) {
	b.Helper()
	crd := testenv.OpenCRD("bench.example.com", kind)
	if err := k8sClient.Create(ctx, crd); err != nil {
		b.Fatal(err)
	}
	waitFor(b, 30*time.Second, func() bool { return established(ctx, crd) })
}

// established reads crd and says whether the API server serves it.
func established(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) bool {
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
		return false
	}
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// createMember creates an object of kind claiming setID.
func createMember(ctx context.Context, b *testing.B, kind, namespace, name, setID string) {
	b.Helper()
	if err := newMember(ctx, kind, namespace, name, setID); err != nil {
		b.Fatal(err)
	}
}

// newMember is createMember for goroutines other than the benchmark's.
func newMember(ctx context.Context, kind, namespace, name, setID string) error {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(schema.GroupVersionKind{Group: "bench.example.com", Version: "v1", Kind: kind})
	obj.SetNamespace(namespace)
	obj.SetName(name)
	obj.SetLabels(map[string]string{applyset.PartOfLabel: setID})
	// A CRD that was just established may take a moment to be served.
	var err error
	if waitErr := poll(30*time.Second, func() bool { err = k8sClient.Create(ctx, obj.DeepCopy()); return err == nil }); waitErr != nil {
		return fmt.Errorf("creating %s %s/%s: %w", kind, namespace, name, err)
	}
	return nil
}

func waitFor(b *testing.B, timeout time.Duration, done func() bool) {
	b.Helper()
	if err := poll(timeout, done); err != nil {
		b.Fatal(err)
	}
}

// poll calls done every 20 ms until it is true, or fails after timeout.
func poll(timeout time.Duration, done func() bool) error {
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			return fmt.Errorf("condition not met within %s", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

func namespace(ctx context.Context, b *testing.B, prefix string) string {
	b.Helper()
	// The operator's default: a set acts as its namespace's default
	// ServiceAccount, here allowed everything in the namespace.
	name, err := testenv.TenantNamespace(ctx, k8sClient, prefix)
	if err != nil {
		b.Fatal(err)
	}
	return name
}

var kindCounter atomic.Int64

// uniqueKind returns a kind name not used before in this process.
func uniqueKind(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, kindCounter.Add(1))
}

// readCPU reads the CPU time spent so far by the API server, etcd, this
// process (the operator runs in it) and the children it waited for.
func readCPU(ctx context.Context, b *testing.B) testenv.CPU {
	b.Helper()
	return readCPUOn(ctx, b, cp)
}

// readCPUOn is readCPU for the control plane on.
func readCPUOn(ctx context.Context, b *testing.B, on *testenv.Env) testenv.CPU {
	b.Helper()
	c, err := testenv.ReadCPU(ctx, on.Config, on.EtcdURL())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

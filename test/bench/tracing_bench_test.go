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

package bench

import (
	"context"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/internal/tracing"
)

// BenchmarkFirstApplyTraces sets the operator's first apply of 1,000
// objects over 10 CRD kinds, declared inline, with traces off (the no-op
// tracer, no transport wrapped) against the same with traces on, exported
// over OTLP gRPC to a receiver in the process that counts them, and with
// traces on but no traceparent sent to the API server (OTEL_PROPAGATORS=none,
// "local"): an API server spends more on a request that carries one, even
// with its own tracing off. Each apply has an operator of its own, started
// and warmed before it is timed. Each iteration runs off, on, local, local,
// on, off: a later apply finds a control plane that holds more objects than
// an earlier one did, and the order balances that out, even at
// -benchtime=1x. It reports each one's time and the allocations of the
// whole process while it ran, the CPU time of the API server, etcd and the
// process (less noisy than the time on a busy machine), their ratios to
// off, and the spans an apply exported.
func BenchmarkFirstApplyTraces(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	objs := manifests(ctx, b, 1000, 0, 0)
	totals := map[string]float64{}
	for b.Loop() {
		b.StopTimer()
		for _, mode := range []string{"off", "on", "local", "local", "on", "off"} {
			took, cpu, allocs, spans := firstApplyTraced(ctx, b, mode, objs)
			b.Logf("first apply of %d objects, traces %s: %s, %d allocations, %d spans; CPU: %s",
				len(objs), mode, took.Round(10*time.Millisecond), allocs, spans, cpu)
			totals[mode+"-s"] += took.Seconds()
			totals[mode+"-cpu-s"] += (cpu.APIServer + cpu.Etcd + cpu.Self).Seconds()
			totals[mode+"-allocs"] += float64(allocs)
			totals[mode+"-spans"] += float64(spans)
		}
		b.StartTimer()
	}
	for unit, v := range totals {
		b.ReportMetric(v/float64(2*b.N), unit)
	}
	for _, mode := range []string{"on", "local"} {
		b.ReportMetric(totals[mode+"-s"]/totals["off-s"], mode+"/off-time")
		b.ReportMetric(totals[mode+"-cpu-s"]/totals["off-cpu-s"], mode+"/off-cpu")
		b.ReportMetric(totals[mode+"-allocs"]/totals["off-allocs"], mode+"/off-allocs")
	}
}

// firstApplyTraced is one first apply of objs by an operator of its own,
// with traces off, on, or on with no traceparent sent ("local"): how long it took, the CPU time the API server,
// etcd and this process spent meanwhile, what the process allocated and how
// many spans it exported. The set is suspended after, so that the next
// operators leave it be.
func firstApplyTraced(ctx context.Context, b *testing.B, mode string, objs []map[string]any) (time.Duration, testenv.CPU, uint64, int64) {
	cfg, spans, flush := operatorConfig(), &spanCounter{}, func() {}
	if mode != "off" {
		b.Setenv("OTEL_PROPAGATORS", map[bool]string{true: "none"}[mode == "local"])
		cfg, flush = traced(b, cfg, spans)
	}
	stop := runTracedOperator(b, cfg)
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace(ctx, b, "traces-"), Name: "load"}}
	set.Spec.Resources = resources(b, objs)
	var before, after runtime.MemStats
	cpu := readCPU(ctx, b)
	runtime.ReadMemStats(&before)
	start := time.Now()
	if err := k8sClient.Create(ctx, set); err != nil {
		b.Fatal(err)
	}
	waitReady(ctx, b, set)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	cpu = readCPU(ctx, b).Sub(cpu)
	patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"suspend":true}}`))
	if err := k8sClient.Patch(ctx, set, patch); err != nil {
		b.Fatal(err)
	}
	stop()
	flush()
	return took, cpu, after.Mallocs - before.Mallocs, spans.n.Load()
}

// traced turns the operator's traces on as its Deployment does, with the
// OTEL_* variables, exporting to a receiver that counts spans into spans,
// and returns cfg wrapped as cmd/manager wraps its own, and what sends the
// last spans and turns traces off (at the latest when b ends).
func traced(b *testing.B, cfg *rest.Config, spans *spanCounter) (*rest.Config, func()) {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	server := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(server, spans)
	go func() { _ = server.Serve(l) }()
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+l.Addr().String())
	b.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	shutdown, err := tracing.Setup(context.Background(), "applyset-operator")
	if err != nil {
		b.Fatal(err)
	}
	var once sync.Once
	flush := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := shutdown(ctx); err != nil {
				b.Errorf("flushing the traces: %v", err)
			}
		})
	}
	b.Cleanup(func() {
		flush()
		server.Stop()
	})
	return tracing.WrapConfig(cfg), flush
}

// runTracedOperator runs the set reconcilers on cfg, waits until they made
// a set Ready, and returns what stops them.
func runTracedOperator(b *testing.B, cfg *rest.Config) (stop func()) {
	b.Helper()
	stopManager, err := env.RunManagerAs(cfg, func(o *ctrl.Options) { applysets.CacheOptions(&o.Cache) }, func(mgr ctrl.Manager) error {
		return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
	})
	if err != nil {
		b.Fatal(err)
	}
	warmUp(b)
	return func() {
		if err := stopManager(); err != nil {
			b.Errorf("the operator stopped with an error: %v", err)
		}
	}
}

// spanCounter is an OTLP trace receiver that counts the spans it is sent.
type spanCounter struct {
	collectortrace.UnimplementedTraceServiceServer
	n atomic.Int64
}

func (c *spanCounter) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			c.n.Add(int64(len(ss.GetSpans())))
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

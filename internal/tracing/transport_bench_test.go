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

package tracing

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkRequestSpan is what a request's span costs: a request to a
// local server made in a trace, through the transport WrapConfig wraps and
// through none, each span ended into a batch processor, as the operator's
// are (its export is not counted).
func BenchmarkRequestSpan(b *testing.B) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) }))
	defer server.Close()
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	otel.SetTracerProvider(provider)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	b.Cleanup(func() { otel.SetTracerProvider(noop.NewTracerProvider()) })
	base := server.Client().Transport
	for _, tt := range []struct {
		name string
		rt   http.RoundTripper
	}{
		{"none", base},
		{"spans", transport(base)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			ctx, span := Tracer().Start(context.Background(), "reconcile")
			defer span.End()
			client := &http.Client{Transport: tt.rt}
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, server.URL+"/api/v1/namespaces/a/configmaps/b", nil)
				res, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				_ = res.Body.Close()
			}
		})
	}
}

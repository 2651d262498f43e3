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
	"encoding/hex"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
	"k8s.io/client-go/rest"
)

func TestRequested(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing set", nil, false},
		{"an endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{"a traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{"the otlp exporter named", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{"traces turned off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
		{"the SDK off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Requested(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("Requested = %v, want %v", got, tc.want)
			}
		})
	}
}

// collector is an OTLP/HTTP receiver of traces: the spans it was sent, by name, with their trace IDs.
type collector struct {
	mu    sync.Mutex
	spans map[string]string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans[s.Name] = hex.EncodeToString(s.TraceId)
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(nil)
}

// Configured by the environment alone, traces reach the collector, and a
// request made within a span is a span of its own, which carries its trace
// to the server as W3C traceparent unless OTEL_PROPAGATORS says none.
func TestSetupExportsAndPropagates(t *testing.T) {
	for _, tt := range []struct {
		propagators string
		wantSent    bool
	}{
		{propagators: "", wantSent: true},
		{propagators: "tracecontext", wantSent: true},
		{propagators: "none", wantSent: false},
	} {
		t.Run("OTEL_PROPAGATORS="+tt.propagators, func(t *testing.T) {
			t.Setenv("OTEL_PROPAGATORS", tt.propagators)
			spans, id, traceparent := traceOneRequest(t)
			if sent := traceparent != ""; sent != tt.wantSent {
				t.Errorf("traceparent %q sent: %v, want %v", traceparent, sent, tt.wantSent)
			}
			if tt.wantSent && (id == "" || !strings.Contains(traceparent, id)) {
				t.Errorf("traceparent %q; want one of trace %s", traceparent, id)
			}
			if spans["reconcile"] != id || spans["GET /api/v1/namespaces"] != id {
				t.Errorf("spans %v; want reconcile and its request, of trace %s", spans, id)
			}
			if _, ok := spans["GET /api/v1/pods"]; ok {
				t.Errorf("a request outside any trace was traced: %v", spans)
			}
		})
	}
}

// traceOneRequest turns traces on, makes one request within a span and one
// outside any, turns them off, and returns the spans the collector got, the
// span's trace and the traceparent the server saw.
func traceOneRequest(t *testing.T) (spans map[string]string, id, traceparent string) {
	t.Helper()
	c := &collector{spans: map[string]string{}}
	srv := httptest.NewServer(c)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	ctx := context.Background()
	shutdown, err := Setup(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/namespaces" {
			traceparent = r.Header.Get("traceparent")
		}
	}))
	defer api.Close()
	cfg := WrapConfig(&rest.Config{Host: api.URL})
	client := &http.Client{Transport: cfg.WrapTransport(http.DefaultTransport)}

	ctx, span := Tracer().Start(ctx, "reconcile")
	id = TraceID(ctx)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, api.URL+"/api/v1/namespaces", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	span.End()
	// A request outside any trace, as an informer's watch, is no span.
	resp, err = client.Get(api.URL + "/api/v1/pods")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if WrapConfig(&rest.Config{}).WrapTransport != nil {
		t.Error("a config was wrapped after the traces' shutdown")
	}
	if _, after := Tracer().Start(context.Background(), "after"); after.IsRecording() {
		t.Error("a span was recorded after the traces' shutdown")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.spans), id, traceparent
}

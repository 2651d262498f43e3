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

// Package tracing turns OpenTelemetry traces of the operator and the
// plugin on when, and only when, the standard OTEL_* environment variables
// ask for them: an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), or OTEL_TRACES_EXPORTER=otlp. The
// exporter, its protocol (OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf, the
// default, or grpc), headers and sampler (OTEL_TRACES_SAMPLER) are read
// from the same variables, by the SDK, and the propagators that carry a
// trace to the API server from OTEL_PROPAGATORS (W3C trace context and
// baggage unless it says otherwise; none sends no traceparent, which an API
// server that does not trace pays for too). Off, nothing is installed: the
// global tracer provider stays OpenTelemetry's no-op one, and no transport
// is wrapped.
package tracing

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/contrib/propagators/autoprop"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/client-go/rest"
)

// name is the instrumentation scope of every span the project makes.
const name = "github.com/applyset-operator/applyset-operator"

// on is set once Setup installed a tracer provider.
var on atomic.Bool

// Requested reports whether the environment getenv reads asks for traces.
func Requested(getenv func(string) string) bool {
	if getenv("OTEL_SDK_DISABLED") == "true" || getenv("OTEL_TRACES_EXPORTER") == "none" {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" ||
		getenv("OTEL_TRACES_EXPORTER") == "otlp"
}

// Setup installs, where the environment asks for traces, a tracer provider
// that exports them over OTLP as service, and the propagators
// OTEL_PROPAGATORS names. It returns what flushes and stops the export, and turns
// traces off again: the no-op provider back, and no config wrapped after;
// off, a function that does nothing.
func Setup(ctx context.Context, service string) (shutdown func(context.Context) error, err error) {
	if !Requested(os.Getenv) {
		return func(context.Context) error { return nil }, nil
	}
	if e := os.Getenv("OTEL_TRACES_EXPORTER"); e != "" && e != "otlp" {
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER %q: only otlp (or none) is supported", e)
	}
	exporter, err := newExporter(ctx)
	if err != nil {
		return nil, err
	}
	// The environment's OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES come last, and win.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", service)), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("the resource of traces: %w", err)
	}
	// Without a sampler option, the SDK reads OTEL_TRACES_SAMPLER and its argument.
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	before := otel.GetTracerProvider()
	otel.SetTracerProvider(provider)
	otel.SetTextMapPropagator(autoprop.NewTextMapPropagator())
	on.Store(true)
	return func(ctx context.Context) error {
		on.Store(false)
		otel.SetTracerProvider(before)
		return provider.Shutdown(ctx)
	}, nil
}

// newExporter is the OTLP exporter of the protocol the environment names.
func newExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	protocol := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch protocol {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	}
	return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q: use http/protobuf or grpc", protocol)
}

// Tracer is the project's tracer: a no-op one while traces are off.
func Tracer() trace.Tracer { return otel.Tracer(name) }

// WrapConfig makes every request made with cfg a span, which carries the
// W3C traceparent header so that an API server with tracing on joins its
// spans to the trace. Off, cfg is left as it is.
func WrapConfig(cfg *rest.Config) *rest.Config {
	if on.Load() {
		cfg.Wrap(transport)
	}
	return cfg
}

// transport is rt with a span for each request made within a trace, named
// by its method and path: the requests of a reconcile, not the informers'
// lists and watches, which would each start a trace of their own.
func transport(rt http.RoundTripper) http.RoundTripper {
	return otelhttp.NewTransport(rt,
		otelhttp.WithFilter(func(r *http.Request) bool { return trace.SpanContextFromContext(r.Context()).IsValid() }),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + r.URL.Path }))
}

// TraceID is the ID of the trace ctx's span belongs to; "" when none is recorded.
func TraceID(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || !sc.IsSampled() {
		return ""
	}
	return sc.TraceID().String()
}

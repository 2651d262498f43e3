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
	"net"
	"sync"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracev1 "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
)

// span is one span a receiver was sent, with the service that sent it.
type span struct {
	Service, Name                 string
	TraceID, SpanID, ParentSpanID string
	Start, End                    uint64
	Attributes                    map[string]string
}

// receiver is an OTLP gRPC trace receiver that keeps every span it is sent:
// the collector both the operator and kube-apiserver export to.
type receiver struct {
	collectortrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []span
}

// serve starts r on a port of the loopback and returns its address and
// what stops it.
func (r *receiver) serve() (addr string, stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	server := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(server, r)
	go func() { _ = server.Serve(l) }()
	return l.Addr().String(), server.Stop, nil
}

// Export keeps the spans of req.
func (r *receiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, spanOf(service, s))
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func spanOf(service string, s *tracev1.Span) span {
	attrs := map[string]string{}
	for _, a := range s.GetAttributes() {
		attrs[a.GetKey()] = a.GetValue().GetStringValue()
	}
	return span{Service: service, Name: s.GetName(), TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
		ParentSpanID: hex.EncodeToString(s.GetParentSpanId()), Start: s.GetStartTimeUnixNano(), End: s.GetEndTimeUnixNano(), Attributes: attrs}
}

// trace is every span received of the trace id.
func (r *receiver) trace(id string) []span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []span
	for _, s := range r.spans {
		if s.TraceID == id {
			out = append(out, s)
		}
	}
	return out
}

// find is the first span received that match says of.
func (r *receiver) find(match func(span) bool) (span, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.spans {
		if match(s) {
			return s, true
		}
	}
	return span{}, false
}

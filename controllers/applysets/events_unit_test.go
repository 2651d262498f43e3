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

package applysets

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
	"k8s.io/client-go/tools/events"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

func TestEventNamesTheTrace(t *testing.T) {
	traced := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4}, TraceFlags: trace.FlagsSampled}))
	unsampled := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4}}))
	suffix := " (trace 01020300000000000000000000000000)"
	long := strings.Repeat("x", maxEventMessage)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		note string
		want func(string) bool
	}{
		{"outside a trace the note is as told", context.Background(), "applied", func(n string) bool { return n == "applied" }},
		{"a trace not sampled is not named", unsampled, "applied", func(n string) bool { return n == "applied" }},
		{"within a trace the note ends with its ID", traced, "applied", func(n string) bool { return n == "applied"+suffix }},
		{"a note at the bound is cut to leave the ID room", traced, long, func(n string) bool {
			return len(n) <= maxEventMessage && strings.HasSuffix(n, "..."+suffix)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := events.NewFakeRecorder(1)
			r := &Reconciler{recorder: fake}
			r.event(tc.ctx, &applyv1alpha1.ApplySet{}, "Normal", ReasonApplied, "Apply", "%s", tc.note)
			got := strings.TrimPrefix(<-fake.Events, "Normal "+ReasonApplied+" ")
			if !tc.want(got) {
				t.Fatalf("note %q", got)
			}
		})
	}
}

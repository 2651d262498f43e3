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
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/applyset-operator/applyset-operator/internal/tracing"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// Traces: one a reconcile, a span a phase and a step of the run, and one a
// request to the API server (tracing.WrapConfig). While traces are off the
// tracer is OpenTelemetry's no-op one, and each of these costs next to
// nothing.

// traceReconcile starts the reconcile's trace, and puts its ID in the
// reconcile's log lines.
func (r *Reconciler) traceReconcile(ctx context.Context, req reconcile.Request) (context.Context, trace.Span) {
	ctx, span := tracing.Tracer().Start(ctx, "Reconcile "+r.groupKind.Kind, trace.WithAttributes(
		attribute.String("applyset.kind", r.groupKind.Kind), attribute.String("applyset.namespace", req.Namespace),
		attribute.String("applyset.name", req.Name)))
	if id := tracing.TraceID(ctx); id != "" {
		ctx = log.IntoContext(ctx, log.FromContext(ctx).WithValues("traceID", id))
	}
	return ctx, span
}

// endReconcile says on the reconcile's span what the run found and did.
func endReconcile(span trace.Span, generation int64, o outcome) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attribute.Int64("applyset.generation", generation), attribute.String("applyset.declared", o.applied.Declared),
		attribute.Int("applyset.applied", o.applied.Count(apply.Created)+o.applied.Count(apply.Configured)+o.applied.Count(apply.Recreated)),
		attribute.Int("applyset.unchanged", o.applied.Count(apply.Unchanged)), attribute.Int("applyset.pruned", o.pruned.Count(apply.Pruned)),
		attribute.Bool("applyset.dry_run", o.dryRun))
	if o.err != nil {
		span.SetAttributes(attribute.String("applyset.reason", o.reason))
		span.SetStatus(codes.Error, o.err.Error())
	}
}

// phaseSpan runs one phase of a reconcile in a span of its own.
func phaseSpan(ctx context.Context, name string, s *scope, p phase) bool {
	ctx, span := tracing.Tracer().Start(ctx, name)
	defer span.End()
	return p(ctx, s)
}

// timedIn is r.timed, and a span, under ctx's, for each step of the run
// the run reports when it ends.
func (r *Reconciler) timedIn(ctx context.Context) func(step string, took time.Duration) {
	return func(step string, took time.Duration) {
		r.timed(ctx, step, took)
		if !trace.SpanFromContext(ctx).IsRecording() {
			return
		}
		end := time.Now()
		_, span := tracing.Tracer().Start(ctx, step, trace.WithTimestamp(end.Add(-took)))
		span.End(trace.WithTimestamp(end))
	}
}

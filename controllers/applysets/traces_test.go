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
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

var _ = Describe("Traces", Serial, func() {
	It("traces a reconcile: a span a phase and a step of the run, its trace named in the history entry", func(ctx context.Context) {
		spans := tracetest.NewInMemoryExporter()
		provider := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		before := otel.GetTracerProvider()
		otel.SetTracerProvider(provider)
		DeferCleanup(func() { otel.SetTracerProvider(before) })

		ns := newNamespace(ctx)
		set := newSet(ns, "traced", inlineConfigMap("traced", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Eventually(history(ctx, set)).ShouldNot(BeEmpty())
		traceID := set.Status.History[0].TraceID
		Expect(traceID).To(MatchRegexp(`^[0-9a-f]{32}$`))

		names := map[string]bool{}
		var reconcile sdktrace.ReadOnlySpan
		for _, s := range spans.GetSpans().Snapshots() {
			if s.SpanContext().TraceID().String() != traceID {
				continue
			}
			names[s.Name()] = true
			if s.Name() == "Reconcile ApplySet" {
				reconcile = s
			}
		}
		Expect(names).To(SatisfyAll(HaveKey("Reconcile ApplySet"), HaveKey("actor"), HaveKey("windows"), HaveKey("run"),
			HaveKey("read"), HaveKey("inspect"), HaveKey("write")), "the spans of the trace its history names")
		Expect(reconcile).NotTo(BeNil())
		Expect(reconcile.Attributes()).To(ContainElements(attribute.String("applyset.name", "traced"),
			attribute.String("applyset.namespace", ns), attribute.Int("applyset.applied", 1)))

		By("naming the trace of the reconcile that applied in its Event")
		Eventually(eventsOf(ctx, ns, set.Name, ReasonApplied)).Should(HaveLen(1))
		note := eventsOf(ctx, ns, set.Name, ReasonApplied)()[0].Note
		Expect(note).To(MatchRegexp(` \(trace [0-9a-f]{32}\)$`))
		applying := note[len(note)-33 : len(note)-1]
		Expect(reconcilesOf(spans, "traced")).To(ContainElement(applying), "the Event names a trace that is no reconcile of the set")
	})
})

// reconcilesOf are the traces of the reconciles of the set named name.
func reconcilesOf(spans *tracetest.InMemoryExporter, name string) []string {
	var ids []string
	for _, s := range spans.GetSpans().Snapshots() {
		if s.Name() == "Reconcile ApplySet" && slices.Contains(s.Attributes(), attribute.String("applyset.name", name)) {
			ids = append(ids, s.SpanContext().TraceID().String())
		}
	}
	return ids
}

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

package validation

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
)

// gate writes one feature gate as flow-style YAML: name, preRelease, then the
// remaining fields as given (e.g. "default: true, fieldPaths: [.spec.a]").
func gate(name, preRelease, fields string) string {
	return fmt.Sprintf("{name: %s, preRelease: %s, %s}", name, preRelease, fields)
}

var _ = Describe("CustomFeatureGates validation", func() {
	DescribeTable("rules", func(ctx context.Context, manifest string, want *rejection) {
		expectBoth(ctx, manifest, want)
	},
		Entry("gates of every maturity are accepted", featureGates("widgets.example.com", `{component: widgets,
			featureGates: [
				{name: ReplicasField, preRelease: Alpha, fieldPaths: [.spec.replicas]},
				{name: OffAlpha, preRelease: Alpha, default: false, enabled: true, fieldPaths: [.spec.offAlpha]},
				{name: Scaling, preRelease: Beta, default: true, fieldPaths: [.spec.scaling, .spec.scaling.max]},
				{name: Storage, preRelease: Stable, default: true, fieldPaths: [.spec.storage]},
				{name: Legacy, preRelease: Deprecated, default: false, deprecationWarning: use .spec.modern, fieldPaths: [.status.legacy]}]}`),
			accepted),
		Entry("no gates at all are accepted", featureGates("widgets.example.com", "{}"), accepted),

		// The object's name.
		Entry("the name is a CRD's name, <plural>.<group>",
			featureGates("widgets", "{}"),
			rejected("metadata", invalid, "metadata.name must be the gated CRD's name, <plural>.<group>")),

		Entry("the operator's ApplySets may not be gated",
			featureGates("applysets.apply.applyset.dev", "{}"),
			rejected("metadata", forbidden, "metadata.name: the operator's own CRDs (groups apply.applyset.dev and "+
				"features.applyset.dev) may not be gated: gates over them could switch off the operator's safeguards")),
		Entry("no CRD of the features group may be gated",
			featureGates("x.features.applyset.dev", "{}"),
			rejected("metadata", forbidden, "the operator's own CRDs (groups apply.applyset.dev and features.applyset.dev) may not be gated")),
		Entry("a group that only ends like the operator's is accepted",
			featureGates("widgets.notapply.applyset.dev", "{}"), accepted),

		Entry("component is not empty when given",
			featureGates("widgets.example.com", "{component: ''}"),
			rejected("spec.component", invalid, "should be at least 1 chars long")),

		// Gate names.
		Entry("gate names are CamelCase",
			gates(gate("replicasField", "Alpha", "fieldPaths: [.spec.replicas]")),
			rejected("spec.featureGates[0].name", invalid, "should match '^[A-Z][A-Za-z0-9]*$'")),
		Entry("gate names are unique",
			gates(gate("Replicas", "Alpha", "fieldPaths: [.spec.a]"), gate("Replicas", "Alpha", "fieldPaths: [.spec.b]")),
			rejected("spec.featureGates[1]", duplicate, `Duplicate value: {"name":"Replicas"}`)),
		Entry("at most 64 gates",
			gates(repeat(65, func(i int) string {
				return gate(fmt.Sprintf("G%d", i), "Alpha", fmt.Sprintf("fieldPaths: [.spec.f%d]", i))
			})),
			rejected("spec.featureGates", tooMany, "must have at most 64 items")),

		// Maturity and defaults.
		Entry("preRelease is Alpha, Beta, Stable or Deprecated",
			gates(gate("Replicas", "GA", "fieldPaths: [.spec.replicas]")),
			rejected("spec.featureGates[0].preRelease", notSupported, `supported values: "Alpha", "Beta", "Stable", "Deprecated"`)),
		Entry("an Alpha gate may not default to true",
			gates(gate("Replicas", "Alpha", "default: true, fieldPaths: [.spec.replicas]")),
			rejected("spec.featureGates[0].default", forbidden, "an Alpha gate may not default to true")),
		Entry("a Stable gate may not default to false",
			gates(gate("Replicas", "Stable", "default: false, fieldPaths: [.spec.replicas]")),
			rejected("spec.featureGates[0].default", forbidden, "a Stable gate is always on and may not default to false")),
		Entry("a Beta gate states its default",
			gates(gate("Replicas", "Beta", "fieldPaths: [.spec.replicas]")),
			rejected("spec.featureGates[0].default", required, "a Beta or Deprecated gate must state default")),
		Entry("a Deprecated gate states its default",
			gates(gate("Replicas", "Deprecated", "enabled: true, fieldPaths: [.spec.replicas]")),
			rejected("spec.featureGates[0].default", required, "a Beta or Deprecated gate must state default")),
		Entry("deprecationWarning is only for Deprecated gates",
			gates(gate("Replicas", "Beta", "default: true, deprecationWarning: going away, fieldPaths: [.spec.replicas]")),
			rejected("spec.featureGates[0].deprecationWarning", forbidden, "deprecationWarning is only for Deprecated gates")),
		Entry("deprecationWarning is not empty when given",
			gates(gate("Replicas", "Deprecated", "default: true, deprecationWarning: '', fieldPaths: [.spec.replicas]")),
			rejected("spec.featureGates[0].deprecationWarning", invalid, "should be at least 1 chars long")),
		Entry("deprecationWarning fits an admission warning",
			gates(gate("Replicas", "Deprecated", "default: true, deprecationWarning: "+strings.Repeat("w", 121)+", fieldPaths: [.spec.replicas]")),
			rejected("spec.featureGates[0].deprecationWarning", tooLong, "may not be more than 120")),

		// Field paths.
		Entry("a gate needs field paths",
			gates(gate("Replicas", "Alpha", "default: false")),
			rejected("spec.featureGates[0].fieldPaths", required, "Required value")),
		Entry("a gate needs at least one field path",
			gates(gate("Replicas", "Alpha", "fieldPaths: []")),
			rejected("spec.featureGates[0].fieldPaths", invalid, "should have at least 1 items")),
		Entry("at most 8 field paths per gate",
			gates(gate("Replicas", "Alpha", "fieldPaths: ["+repeat(9, func(i int) string { return fmt.Sprintf(".spec.f%d", i) })+"]")),
			rejected("spec.featureGates[0].fieldPaths", tooMany, "must have at most 8 items")),
		Entry("field paths are dotted identifiers",
			gates(gate("Replicas", "Alpha", "fieldPaths: [spec.replicas]")),
			rejected("spec.featureGates[0].fieldPaths[0]", invalid, "should match")),
		Entry("field paths have no indexes",
			gates(gate("Replicas", "Alpha", "fieldPaths: ['.spec.containers[0].image']")),
			rejected("spec.featureGates[0].fieldPaths[0]", invalid, "should match")),
		Entry("field paths are not under .metadata",
			gates(gate("Replicas", "Alpha", "fieldPaths: [.spec.a, .metadata.labels]")),
			rejected("spec.featureGates[0].fieldPaths[1]", forbidden, "may not be under .metadata, .apiVersion or .kind")),
		Entry("field paths are not .apiVersion",
			gates(gate("Replicas", "Alpha", "fieldPaths: [.apiVersion]")),
			rejected("spec.featureGates[0].fieldPaths[0]", forbidden, "may not be under .metadata, .apiVersion or .kind")),
		Entry("field paths are not .kind",
			gates(gate("Replicas", "Alpha", "fieldPaths: [.kind]")),
			rejected("spec.featureGates[0].fieldPaths[0]", forbidden, "may not be under .metadata, .apiVersion or .kind")),
		Entry("a field path that only starts with metadata is accepted",
			gates(gate("Replicas", "Alpha", "fieldPaths: [.metadataRef, .kindness, .spec.metadata]")), accepted),
		Entry("field paths of a gate are a set",
			gates(gate("Replicas", "Alpha", "fieldPaths: [.spec.a, .spec.a]")),
			rejected("spec.featureGates[0].fieldPaths[1]", duplicate, `Duplicate value: ".spec.a"`)),
		Entry("a field path belongs to one gate only",
			gates(gate("A", "Alpha", "fieldPaths: [.spec.a, .spec.shared]"), gate("B", "Alpha", "fieldPaths: [.spec.shared]")),
			rejected("spec.featureGates", invalid, "a field path may belong to one feature gate only")),
		Entry("64 paths in all, the most allowed, are accepted",
			gates(repeat(8, func(g int) string {
				return gate(fmt.Sprintf("G%d", g), "Alpha", "fieldPaths: ["+
					repeat(8, func(p int) string { return fmt.Sprintf(".spec.g%d.p%d", g, p) })+"]")
			})),
			accepted),
		Entry("at most 64 paths in all, so that the compiled policy fits the API server",
			gates(repeat(9, func(g int) string {
				return gate(fmt.Sprintf("G%d", g), "Alpha", "fieldPaths: ["+
					repeat(8, func(p int) string { return fmt.Sprintf(".spec.g%d.p%d", g, p) })+"]")
			})),
			rejected("spec.featureGates", invalid, "at most 64 field paths in all gates")),
		Entry("a field path of 6 names, the most allowed, is accepted",
			gates(gate("Deep", "Alpha", "fieldPaths: [.spec.a.b.c.d.e]")), accepted),
		Entry("a field path has at most 6 names",
			gates(gate("Deep", "Alpha", "fieldPaths: [.spec.a.b.c.d.e.f]")),
			rejected("spec.featureGates[0].fieldPaths[0]", invalid, "should match")),
	)
})

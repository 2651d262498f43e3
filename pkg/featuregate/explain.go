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

package featuregate

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

// ExplainAnnotation is the annotation that, set to "true" on a CRD by its
// owner, lets the operator write gate notes into the descriptions of the
// CRD's gated fields, where `kubectl explain` shows them. It lives in the
// owner's manifest, so the consent survives the owner's re-applies.
const ExplainAnnotation = "features.applyset.dev/explain"

// noteMarker opens every gate note. It names the operator's API group, so
// that no description an owner writes is likely to hold it, and its first
// character occurs in it once: a marker with no prefix that is also its
// suffix cannot be found straddling the end of a description and the start
// of a note, so stripNote finds exactly the note AddNote appended.
const noteMarker = "[features.applyset.dev] "

// noteSeparator puts the note in a paragraph of its own.
const noteSeparator = "\n\n"

// Explained reports whether the owner of crd asked for gate notes.
func Explained(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return crd != nil && crd.Annotations[ExplainAnnotation] == "true"
}

// gateNote is the note for a field of gate: its name, stage and effective state.
func gateNote(g Gate) string {
	enabled, _ := Effective(g)
	state := "disabled"
	if enabled {
		state = "enabled"
	}
	return fmt.Sprintf("%sFeature gate %s (%s): %s. While the gate is disabled, the API server drops this field "+
		"from new objects and keeps its stored value on updates.", noteMarker, g.Name, g.PreRelease, state)
}

// stripNote returns description without the gate note AddNote appended, if
// it has one. Everything from the first marker on is the note.
func stripNote(description string) string {
	i := strings.Index(description, noteMarker)
	if i < 0 {
		return description
	}
	return strings.TrimSuffix(description[:i], noteSeparator)
}

// AddNote returns description with note as its last paragraph, in place of
// any gate note it had. note must come from gateNote.
func AddNote(description, note string) string {
	description = stripNote(description)
	if description == "" {
		return note
	}
	return description + noteSeparator + note
}

// ExplainNotes returns a copy of crd's versions whose gated fields carry the
// note of their gate, at every served version, and whether that differs
// from crd's. Gates come from cfg, which may be nil (deleted); they are
// written only while crd has the ExplainAnnotation, and notes of gates no
// longer there are stripped, so a nil cfg or an unannotated crd gives
// versions without any note. Paths are the storage version's, looked up at
// each version as the webhook matches them; a path a version does not
// declare gets no note there.
func ExplainNotes(cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition) (
	[]apiextensionsv1.CustomResourceDefinitionVersion, bool, error) {
	notes := map[string]string{} // path → note
	if cfg != nil && Explained(crd) {
		for _, g := range FromAPI(cfg.Spec.FeatureGates) {
			for _, p := range g.FieldPaths {
				if _, err := ParsePath(p); err != nil {
					return nil, false, fmt.Errorf("gate %s: %w", g.Name, err)
				}
				notes[p] = gateNote(g)
			}
		}
	}
	versions := make([]apiextensionsv1.CustomResourceDefinitionVersion, len(crd.Spec.Versions))
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].DeepCopyInto(&versions[i])
		v := &versions[i]
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		stripNotes(v.Schema.OpenAPIV3Schema)
		if !v.Served {
			continue
		}
		for p, note := range notes {
			addNoteAt(v.Schema.OpenAPIV3Schema, strings.Split(p[1:], "."), note)
		}
	}
	return versions, !equality.Semantic.DeepEqual(versions, crd.Spec.Versions), nil
}

// stripNotes removes gate notes from node and every field below it, along
// the ways addNoteAt goes: properties and additionalProperties.
func stripNotes(node *apiextensionsv1.JSONSchemaProps) {
	node.Description = stripNote(node.Description)
	for name, child := range node.Properties {
		stripNotes(&child)
		node.Properties[name] = child
	}
	if node.AdditionalProperties != nil && node.AdditionalProperties.Schema != nil {
		stripNotes(node.AdditionalProperties.Schema)
	}
}

// addNoteAt appends note to the description of the field names leads to
// from node, following the schema as lookupSchema does; it does nothing when
// the schema does not declare that field.
func addNoteAt(node *apiextensionsv1.JSONSchemaProps, names []string, note string) {
	if len(names) == 0 {
		node.Description = AddNote(node.Description, note)
		return
	}
	if child, ok := node.Properties[names[0]]; ok {
		addNoteAt(&child, names[1:], note)
		node.Properties[names[0]] = child
		return
	}
	if node.AdditionalProperties != nil && node.AdditionalProperties.Schema != nil {
		addNoteAt(node.AdditionalProperties.Schema, names[1:], note)
	}
}

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
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

// explainCRD has a served v1beta1, a stored v1 and an unserved v1alpha1, each
// with spec.replicas (described), spec.image (not) and a map spec.labels,
// whose key "value" a gate may name.
func explainCRD(annotated bool) *apiextensionsv1.CustomResourceDefinition {
	schema := func() *apiextensionsv1.CustomResourceValidation {
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"replicas": {Type: "integer", Description: "How many copies run."},
					"image":    {Type: "string"},
					"labels": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
						Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", Description: "A label value."}}},
				}},
			}}}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1alpha1", Served: false, Schema: schema()},
			{Name: "v1beta1", Served: true, Schema: schema()},
			{Name: "v1", Served: true, Storage: true, Schema: schema()},
		}},
	}
	if annotated {
		crd.Annotations = map[string]string{ExplainAnnotation: "true"}
	}
	return crd
}

func explainGates(replicasOn bool) *featuresv1alpha1.CustomFeatureGates {
	return &featuresv1alpha1.CustomFeatureGates{Spec: featuresv1alpha1.CustomFeatureGatesSpec{FeatureGates: []featuresv1alpha1.FeatureGate{
		{Name: "Replicas", PreRelease: featuresv1alpha1.Alpha, Enabled: ptr.To(replicasOn), FieldPaths: []string{".spec.replicas"}},
		{Name: "Image", PreRelease: featuresv1alpha1.Beta, Default: ptr.To(true), FieldPaths: []string{".spec.image", ".spec.labels.value"}},
		{Name: "Nowhere", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.missing.deeper"}},
	}}}
}

// description is the description of the field at names in version i.
func description(versions []apiextensionsv1.CustomResourceDefinitionVersion, i int, names ...string) string {
	node := versions[i].Schema.OpenAPIV3Schema
	for _, n := range names {
		if child, ok := node.Properties[n]; ok {
			node = &child
		} else {
			node = node.AdditionalProperties.Schema
		}
	}
	return node.Description
}

func TestExplainNotes(t *testing.T) {
	const (
		replicasOff = "How many copies run.\n\n[features.applyset.dev] Feature gate Replicas (Alpha): disabled. " +
			"While the gate is disabled, the API server drops this field from new objects and keeps its stored value on updates."
		imageOn = "[features.applyset.dev] Feature gate Image (Beta): enabled. " +
			"While the gate is disabled, the API server drops this field from new objects and keeps its stored value on updates."
	)
	noted := func(replicasOn bool) *apiextensionsv1.CustomResourceDefinition {
		crd := explainCRD(true)
		versions, _, err := ExplainNotes(explainGates(replicasOn), crd)
		if err != nil {
			t.Fatal(err)
		}
		crd.Spec.Versions = versions
		return crd
	}
	for _, tc := range []struct {
		name        string
		cfg         *featuresv1alpha1.CustomFeatureGates
		crd         *apiextensionsv1.CustomResourceDefinition
		wantChanged bool
		// wantReplicas and wantImage are the served versions' descriptions.
		wantReplicas, wantImage, wantLabelValue string
	}{
		{name: "annotated, no notes yet", cfg: explainGates(false), crd: explainCRD(true), wantChanged: true,
			wantReplicas: replicasOff, wantImage: imageOn, wantLabelValue: "A label value.\n\n" + imageOn},
		{name: "already noted, same gates: no change", cfg: explainGates(false), crd: noted(false),
			wantReplicas: replicasOff, wantImage: imageOn, wantLabelValue: "A label value.\n\n" + imageOn},
		{name: "gate flipped: only its note changes", cfg: explainGates(true), crd: noted(false), wantChanged: true,
			wantReplicas: strings.Replace(replicasOff, "disabled.", "enabled.", 1), wantImage: imageOn, wantLabelValue: "A label value.\n\n" + imageOn},
		{name: "not annotated: nothing to write", cfg: explainGates(false), crd: explainCRD(false),
			wantReplicas: "How many copies run.", wantLabelValue: "A label value."},
		{name: "annotation removed: notes stripped", cfg: explainGates(false),
			crd: func() *apiextensionsv1.CustomResourceDefinition { c := noted(false); c.Annotations = nil; return c }(), wantChanged: true,
			wantReplicas: "How many copies run.", wantLabelValue: "A label value."},
		{name: "gates deleted: notes stripped", cfg: nil, crd: noted(true), wantChanged: true,
			wantReplicas: "How many copies run.", wantLabelValue: "A label value."},
		{name: "gate removed: its notes stripped", crd: noted(false), wantChanged: true,
			cfg: func() *featuresv1alpha1.CustomFeatureGates {
				c := explainGates(false)
				c.Spec.FeatureGates = c.Spec.FeatureGates[:1]
				return c
			}(),
			wantReplicas: replicasOff, wantLabelValue: "A label value."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.crd.DeepCopy()
			versions, changed, err := ExplainNotes(tc.cfg, tc.crd)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tc.wantChanged)
			}
			for _, i := range []int{1, 2} { // the served versions
				if got := description(versions, i, "spec", "replicas"); got != tc.wantReplicas {
					t.Errorf("%s replicas:\n got %q\nwant %q", versions[i].Name, got, tc.wantReplicas)
				}
				if got := description(versions, i, "spec", "image"); got != tc.wantImage {
					t.Errorf("%s image:\n got %q\nwant %q", versions[i].Name, got, tc.wantImage)
				}
				if got := description(versions, i, "spec", "labels", "value"); got != tc.wantLabelValue {
					t.Errorf("%s labels.value:\n got %q\nwant %q", versions[i].Name, got, tc.wantLabelValue)
				}
				if got := description(versions, i, "spec"); got != "" {
					t.Errorf("%s spec got a description %q", versions[i].Name, got)
				}
			}
			if got := description(versions, 0, "spec", "replicas"); got != "How many copies run." {
				t.Errorf("the unserved version got a note: %q", got)
			}
			if !reflect.DeepEqual(before, tc.crd) {
				t.Error("ExplainNotes changed the CRD it was given")
			}
		})
	}
}

func TestExplainNotesRefusesABadPath(t *testing.T) {
	cfg := explainGates(false)
	cfg.Spec.FeatureGates[0].FieldPaths = []string{"spec.replicas"}
	if _, _, err := ExplainNotes(cfg, explainCRD(true)); err == nil {
		t.Fatal("a path without a leading dot was accepted")
	}
}

func TestNoteOnEmptyDescriptionIsTheWholeDescription(t *testing.T) {
	note := gateNote(Gate{Name: "G", PreRelease: Stable})
	if got := AddNote("", note); got != note {
		t.Fatalf("AddNote(\"\") = %q", got)
	}
	if got := stripNote(note); got != "" {
		t.Fatalf("stripNote(note) = %q", got)
	}
	if !strings.Contains(note, "(Stable): enabled.") {
		t.Fatalf("a Stable gate's note does not say it is enabled: %q", note)
	}
}

// FuzzNotes checks the note parser on any description: stripping undoes
// adding, adding twice is adding once, and a new note replaces the old one.
func FuzzNotes(f *testing.F) {
	for _, seed := range []string{"", "A field.", "a\n\n", "\n\n" + noteMarker + "x", "text " + noteMarker, "[features", "a\n"} {
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, description string, on bool) {
		first := gateNote(Gate{Name: "First", PreRelease: Beta, Enabled: ptr.To(on)})
		second := gateNote(Gate{Name: "Second", PreRelease: Alpha})
		base := stripNote(description)
		if got := stripNote(base); got != base {
			t.Fatalf("stripNote is not idempotent on %q: %q then %q", description, base, got)
		}
		added := AddNote(description, first)
		if got := stripNote(added); got != base {
			t.Fatalf("stripNote(AddNote(%q)) = %q, want %q", description, got, base)
		}
		if got := AddNote(added, first); got != added {
			t.Fatalf("adding the note again to %q changed it: %q", added, got)
		}
		if got, want := AddNote(added, second), AddNote(description, second); got != want {
			t.Fatalf("replacing the note of %q: %q, want %q", description, got, want)
		}
		if !strings.HasSuffix(added, first) || strings.Count(added, noteMarker) != 1 {
			t.Fatalf("AddNote(%q) = %q: not one note at the end", description, added)
		}
	})
}

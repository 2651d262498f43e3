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

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

const gatesYAML = `apiVersion: features.applyset.dev/v1alpha1
kind: CustomFeatureGates
metadata: {name: widgets.example.com}
spec:
  featureGates:
  - {name: Autoscaling, preRelease: Alpha, fieldPaths: [.spec.autoscaling]}
  - {name: Color, preRelease: Deprecated, default: true, deprecationWarning: use paint, fieldPaths: [.spec.color]}
`

const crdYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - {name: v1beta1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`

// render prints exactly the objects the operator compiles, policy by policy.
func TestRenderPrintsTheCompiledPolicies(t *testing.T) {
	var out bytes.Buffer
	if err := render(&out, strings.NewReader(gatesYAML), strings.NewReader(crdYAML)); err != nil {
		t.Fatal(err)
	}
	cfg, crd := &featuresv1alpha1.CustomFeatureGates{}, &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal([]byte(gatesYAML), cfg); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(crdYAML), crd); err != nil {
		t.Fatal(err)
	}
	policies, err := featuregate.ForCRD(cfg, crd)
	if err != nil {
		t.Fatal(err)
	}
	want := policies.Objects()
	docs := strings.Split(out.String(), "---\n")
	if len(docs) != len(want) || len(want) != 4 {
		t.Fatalf("%d documents, want %d:\n%s", len(docs), len(want), out.String())
	}
	for i, doc := range docs {
		got := map[string]any{}
		if err := yaml.Unmarshal([]byte(doc), &got); err != nil {
			t.Fatal(err)
		}
		wantMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want[i])
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, _ := yaml.Marshal(wantMap)
		wantDoc := map[string]any{}
		if err := yaml.Unmarshal(wantJSON, &wantDoc); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantDoc, got); diff != "" {
			t.Errorf("document %d differs from the compiled %T (-want +got):\n%s", i, want[i], diff)
		}
	}
	if !strings.Contains(out.String(), "apiVersions:\n      - v1\n") {
		t.Errorf("the policies do not match the storage version v1:\n%s", out.String())
	}
}

func TestRenderNeedsTheCRD(t *testing.T) {
	err := render(&bytes.Buffer{}, strings.NewReader(gatesYAML))
	if err == nil || !strings.Contains(err.Error(), "not among the manifests") {
		t.Errorf("render without the CRD: %v", err)
	}
	if err := render(&bytes.Buffer{}, strings.NewReader(crdYAML)); err == nil {
		t.Error("render without gates succeeded")
	}
	deep := strings.Replace(gatesYAML, ".spec.autoscaling", ".spec.a.b.c.d.e.f.g", 1)
	if err := render(&bytes.Buffer{}, strings.NewReader(deep), strings.NewReader(crdYAML)); err == nil ||
		!strings.Contains(err.Error(), "is invalid") {
		t.Errorf("render of a path deeper than the API allows: %v", err)
	}
}

// FuzzRender: render reads manifests from users; it fails or prints, never panics.
func FuzzRender(f *testing.F) {
	f.Add(gatesYAML, crdYAML)
	f.Add("kind: CustomFeatureGates\napiVersion: features.applyset.dev/v1alpha1\nmetadata: {name: x}\n", "{}")
	f.Fuzz(func(_ *testing.T, gates, crd string) {
		_ = render(&bytes.Buffer{}, strings.NewReader(gates), strings.NewReader(crd))
	})
}

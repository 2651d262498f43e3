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

package crdvalidate

import (
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func object(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

func TestOperatorValidator(t *testing.T) {
	v, err := Operator()
	if err != nil {
		t.Fatal(err)
	}
	const set = "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: s, namespace: team-a}, spec: "
	tests := []struct {
		name     string
		manifest string
		// want are "field: message" fragments of the errors; empty wants none.
		want   []string
		denied string
	}{
		{name: "a valid ApplySet", manifest: set + "{resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}]}}"},
		{name: "an OpenAPI rule", manifest: set + "{resources: [{kind: ConfigMap, metadata: {name: a}}]}}",
			want: []string{"spec.resources[0].apiVersion: Required value"}},
		{name: "a CEL rule", manifest: "{apiVersion: features.applyset.dev/v1alpha1, kind: CustomFeatureGates, metadata: {name: widgets.example.com}, " +
			"spec: {featureGates: [{name: A, preRelease: Alpha, default: true, fieldPaths: [.spec.a]}]}}",
			want: []string{"spec.featureGates[0].default: Forbidden: an Alpha gate may not default to true"}},
		{name: "metadata", manifest: "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: Not_A_Name, namespace: team-a}, spec: {}}",
			want: []string{"metadata.name: Invalid value"}},
		{name: "the namespace-scope policy", manifest: set + "{resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: team-b}}]}}",
			denied: "ValidatingAdmissionPolicy 'applyset-namespace-scope' with binding 'applyset-namespace-scope' denied request: " +
				"spec.resources: ConfigMap team-b/a lie outside the ApplySet's namespaces (team-a)"},
		{name: "the policy allows additional namespaces", manifest: set +
			"{additionalNamespaces: [team-b], resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: team-b}}]}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs, err := v.Check(context.Background(), object(t, tt.manifest))
			var denial *PolicyDenial
			if tt.denied != "" {
				if !errors.As(err, &denial) || !strings.HasPrefix(denial.Error(), tt.denied) {
					t.Fatalf("want a denial %q, got %v %v", tt.denied, errs, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := errs.ToAggregate()
			if len(tt.want) == 0 && got != nil {
				t.Fatalf("want no errors, got %v", got)
			}
			for _, w := range tt.want {
				if got == nil || !strings.Contains(got.Error(), w) {
					t.Errorf("want an error with %q, got %v", w, got)
				}
			}
		})
	}
}

func TestUnknownKind(t *testing.T) {
	v, err := Operator()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Check(context.Background(), object(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}")); err == nil {
		t.Error("want an error for a kind without a schema")
	}
}

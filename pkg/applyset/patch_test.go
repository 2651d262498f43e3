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

package applyset

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

func TestParentPatch(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apply.applyset.dev", Version: "v1alpha1", Kind: "ApplySet"}
	key := ParentKey{GroupKind: gvk.GroupKind(), Namespace: "home", Name: "web"}
	tests := []struct {
		name            string
		fields          ParentFields
		wantLabels      map[string]string
		wantAnnotations map[string]string
	}{
		{
			name: "everything a tool writes on its own parent",
			fields: ParentFields{
				ID: true, Tooling: &Tooling{Name: "applyset-operator", Version: "v0.1.0"},
				GroupKinds:           sets.New(gk("apps", "Deployment"), gk("", "ConfigMap")),
				AdditionalNamespaces: sets.New("extra", "home"),
			},
			wantLabels: map[string]string{IDLabel: key.ID()},
			wantAnnotations: map[string]string{
				ToolingAnnotation:              "applyset-operator/v0.1.0",
				GroupKindsAnnotation:           "ConfigMap,Deployment.apps",
				AdditionalNamespacesAnnotation: "extra",
			},
		},
		{
			name:            "only the kinds hint, as a repair writes it",
			fields:          ParentFields{GroupKinds: sets.New(gk("", "Secret"))},
			wantAnnotations: map[string]string{GroupKindsAnnotation: "Secret"},
		},
		{
			name:            "an empty set of kinds is written, not left out",
			fields:          ParentFields{GroupKinds: sets.New[schema.GroupKind](), AdditionalNamespaces: sets.New[string]()},
			wantAnnotations: map[string]string{GroupKindsAnnotation: "", AdditionalNamespacesAnnotation: ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patch := ParentPatch(gvk, key, tt.fields)
			if patch.GroupVersionKind() != gvk || patch.GetNamespace() != "home" || patch.GetName() != "web" {
				t.Errorf("patch names %v %s/%s", patch.GroupVersionKind(), patch.GetNamespace(), patch.GetName())
			}
			if got := patch.GetLabels(); !reflect.DeepEqual(got, tt.wantLabels) {
				t.Errorf("labels = %v, want %v", got, tt.wantLabels)
			}
			if got := patch.GetAnnotations(); !reflect.DeepEqual(got, tt.wantAnnotations) {
				t.Errorf("annotations = %v, want %v", got, tt.wantAnnotations)
			}
		})
	}
}

func TestObjectName(t *testing.T) {
	tests := []struct {
		gk              schema.GroupKind
		namespace, name string
		want            string
	}{
		{gk("", "ConfigMap"), "team-a", "web", "ConfigMap team-a/web"},
		{gk("apps", "Deployment"), "team-a", "web", "Deployment.apps team-a/web"},
		{gk("rbac.authorization.k8s.io", "ClusterRole"), "", "view", "ClusterRole.rbac.authorization.k8s.io view"},
	}
	for _, tt := range tests {
		if got := ObjectName(tt.gk, tt.namespace, tt.name); got != tt.want {
			t.Errorf("ObjectName(%v, %q, %q) = %q, want %q", tt.gk, tt.namespace, tt.name, got, tt.want)
		}
	}
}

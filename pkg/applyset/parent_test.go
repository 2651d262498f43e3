/*
Copyright 2026 The applyset-operator Authors.

Licensed under the Apache License, applyset.Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package applyset_test

import (
	"testing"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

func TestParseParent(t *testing.T) {
	key := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "default", Name: "my-set"}
	other := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "default", Name: "other"}
	kubectl := map[string]string{
		applyset.ToolingAnnotation:              "kubectl/v1.37.1",
		applyset.GroupKindsAnnotation:           "ConfigMap,Deployment.apps",
		applyset.AdditionalNamespacesAnnotation: "team-b",
	}
	with := func(base map[string]string, key, value string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		if value == "-" {
			delete(out, key)
		} else {
			out[key] = value
		}
		return out
	}

	tests := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		wantReasons []string
		wantTrusted bool
		check       func(t *testing.T, p applyset.Parent)
	}{
		{
			name:        "a parent as kubectl writes it",
			labels:      map[string]string{applyset.IDLabel: key.ID()},
			annotations: kubectl,
			wantTrusted: true,
			check: func(t *testing.T, p applyset.Parent) {
				if p.Tooling != (applyset.Tooling{Name: "kubectl", Version: "v1.37.1"}) {
					t.Errorf("Tooling = %+v", p.Tooling)
				}
				if !p.GroupKinds.Equal(sets.New(schema.GroupKind{Kind: "ConfigMap"}, schema.GroupKind{Group: "apps", Kind: "Deployment"})) {
					t.Errorf("GroupKinds = %v", p.GroupKinds.UnsortedList())
				}
				if !p.Scope.Contains("team-b") || !p.Scope.Contains("default") || p.Scope.Contains("team-c") {
					t.Errorf("Scope = %+v", p.Scope)
				}
			},
		},
		{
			name:        "an ID copied from another set",
			labels:      map[string]string{applyset.IDLabel: other.ID()},
			annotations: kubectl,
			wantReasons: []string{applyset.ReasonIDMismatch},
		},
		{
			name:        "no ID label",
			annotations: kubectl,
			wantReasons: []string{applyset.ReasonIDMissing},
		},
		{
			name:        "no tooling",
			labels:      map[string]string{applyset.IDLabel: key.ID()},
			annotations: with(kubectl, applyset.ToolingAnnotation, "-"),
			wantReasons: []string{applyset.ReasonToolingMissing},
			wantTrusted: true,
		},
		{
			name:        "a tooling value with white space",
			labels:      map[string]string{applyset.IDLabel: key.ID()},
			annotations: with(kubectl, applyset.ToolingAnnotation, "kube ctl/v1"),
			wantReasons: []string{applyset.ReasonToolingInvalid},
			wantTrusted: true,
		},
		{
			name:        "only the deprecated resources hint",
			labels:      map[string]string{applyset.IDLabel: key.ID()},
			annotations: with(with(kubectl, applyset.GroupKindsAnnotation, "-"), applyset.GroupResourcesAnnotation, "configmaps,deployments.apps"),
			wantTrusted: true,
			check: func(t *testing.T, p applyset.Parent) {
				if p.GroupKinds != nil || p.GroupResources.Len() != 2 {
					t.Errorf("GroupKinds = %v, GroupResources = %v", p.GroupKinds, p.GroupResources)
				}
			},
		},
		{
			name:        "kinds win over the deprecated hint",
			labels:      map[string]string{applyset.IDLabel: key.ID()},
			annotations: with(kubectl, applyset.GroupResourcesAnnotation, "secrets"),
			wantTrusted: true,
			check: func(t *testing.T, p applyset.Parent) {
				if p.GroupResources != nil {
					t.Errorf("GroupResources = %v, want them ignored", p.GroupResources)
				}
			},
		},
		{
			name:        "no hint at all",
			labels:      map[string]string{applyset.IDLabel: key.ID()},
			annotations: with(kubectl, applyset.GroupKindsAnnotation, "-"),
			wantReasons: []string{applyset.ReasonHintMissing},
			wantTrusted: true,
		},
		{
			name:        "an empty hint is an empty set",
			labels:      map[string]string{applyset.IDLabel: key.ID()},
			annotations: with(kubectl, applyset.GroupKindsAnnotation, ""),
			wantTrusted: true,
			check: func(t *testing.T, p applyset.Parent) {
				if p.GroupKinds == nil || p.GroupKinds.Len() != 0 {
					t.Errorf("GroupKinds = %v, want an empty set", p.GroupKinds)
				}
			},
		},
		{
			name:        "bad hint and bad namespaces",
			labels:      map[string]string{applyset.IDLabel: key.ID()},
			annotations: with(with(kubectl, applyset.GroupKindsAnnotation, "configmaps"), applyset.AdditionalNamespacesAnnotation, "Team B"),
			wantReasons: []string{applyset.ReasonHintInvalid, applyset.ReasonNamespaceInvalid},
			wantTrusted: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := applyset.ParseParent(key, tt.labels, tt.annotations)
			var reasons []string
			for _, problem := range p.Problems {
				reasons = append(reasons, problem.Reason)
				if problem.Message == "" {
					t.Errorf("problem %s has no message", problem.Reason)
				}
			}
			if !sets.New(reasons...).Equal(sets.New(tt.wantReasons...)) || len(reasons) != len(tt.wantReasons) {
				t.Errorf("reasons = %v, want %v (%v)", reasons, tt.wantReasons, p.Problems)
			}
			if p.Trusted() != tt.wantTrusted {
				t.Errorf("Trusted() = %v, want %v", p.Trusted(), tt.wantTrusted)
			}
			if tt.check != nil {
				tt.check(t, p)
			}
		})
	}
}

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

package parents

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/membership"
)

func TestVerify(t *testing.T) {
	key := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "home", Name: "set"}
	const parentUID = types.UID("parent-uid")
	configMap := schema.GroupKind{Kind: "ConfigMap"}
	deployment := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	member := func(gk schema.GroupKind, namespace, name string, owners ...types.UID) membership.Member {
		m := membership.Member{GroupKind: gk, Namespace: namespace, Name: name}
		for _, uid := range owners {
			m.OwnerReferences = append(m.OwnerReferences, metav1.OwnerReference{UID: uid, Kind: "Thing", Name: "owner"})
		}
		return m
	}
	parent := func(hint string, extra ...string) applyset.Parent {
		annotations := map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: hint}
		for i := 0; i+1 < len(extra); i += 2 {
			annotations[extra[i]] = extra[i+1]
		}
		return applyset.ParseParent(key, map[string]string{applyset.IDLabel: key.ID()}, annotations)
	}

	tests := []struct {
		name        string
		parent      applyset.Parent
		members     []membership.Member
		wantReasons []string
		wantHint    string
	}{
		{
			name:     "a healthy set",
			parent:   parent("ConfigMap,Deployment.apps"),
			members:  []membership.Member{member(configMap, "home", "a"), member(deployment, "home", "web")},
			wantHint: "ConfigMap,Deployment.apps",
		},
		{
			name:     "a hint listing more kinds than the members have is no problem, and kept",
			parent:   parent("ConfigMap,Deployment.apps"),
			members:  []membership.Member{member(configMap, "home", "a")},
			wantHint: "ConfigMap,Deployment.apps",
		},
		{
			name:        "a member of a kind the hint omits",
			parent:      parent("ConfigMap"),
			members:     []membership.Member{member(configMap, "home", "a"), member(deployment, "home", "web")},
			wantReasons: []string{ReasonHintIncomplete},
			wantHint:    "ConfigMap,Deployment.apps",
		},
		{
			name:        "a member outside the scope",
			parent:      parent("ConfigMap"),
			members:     []membership.Member{member(configMap, "elsewhere", "a")},
			wantReasons: []string{ReasonMemberOutOfScope},
			wantHint:    "ConfigMap",
		},
		{
			name:     "members in additional namespaces and at cluster scope are in scope",
			parent:   parent("ConfigMap,Namespace", applyset.AdditionalNamespacesAnnotation, "extra"),
			members:  []membership.Member{member(configMap, "extra", "a"), member(schema.GroupKind{Kind: "Namespace"}, "", "extra")},
			wantHint: "ConfigMap,Namespace",
		},
		{
			name:        "a member another object owns",
			parent:      parent("ConfigMap"),
			members:     []membership.Member{member(configMap, "home", "a", "someone-else")},
			wantReasons: []string{ReasonOwnershipConflict},
			wantHint:    "ConfigMap",
		},
		{
			name:     "a member the parent owns",
			parent:   parent("ConfigMap"),
			members:  []membership.Member{member(configMap, "home", "a", "someone-else", parentUID)},
			wantHint: "ConfigMap",
		},
		{
			name: "an untrusted parent judges no members",
			parent: applyset.ParseParent(key, map[string]string{applyset.IDLabel: "applyset-copied-v1"},
				map[string]string{applyset.ToolingAnnotation: "kubectl/v1", applyset.GroupKindsAnnotation: ""}),
			members:     []membership.Member{member(configMap, "elsewhere", "a", "someone-else")},
			wantReasons: []string{applyset.ReasonIDMismatch},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Verify(tt.parent, parentUID, tt.members)
			var reasons []string
			for _, p := range v.Problems {
				reasons = append(reasons, p.Reason)
			}
			if len(reasons) != len(tt.wantReasons) {
				t.Fatalf("reasons = %v, want %v (%v)", reasons, tt.wantReasons, v.Problems)
			}
			for i := range reasons {
				if reasons[i] != tt.wantReasons[i] {
					t.Errorf("reasons = %v, want %v", reasons, tt.wantReasons)
				}
			}
			if v.DesiredHint() != tt.wantHint {
				t.Errorf("DesiredHint = %q, want %q", v.DesiredHint(), tt.wantHint)
			}
			if v.Healthy() != (len(tt.wantReasons) == 0) {
				t.Errorf("Healthy() = %v", v.Healthy())
			}
		})
	}
}

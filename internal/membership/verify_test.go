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

package membership

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestVerify(t *testing.T) {
	key := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "home", Name: "set"}
	const parentUID = types.UID("parent-uid")
	configMap := schema.GroupKind{Kind: "ConfigMap"}
	deployment := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	member := func(gk schema.GroupKind, namespace, name string, owners ...types.UID) Member {
		m := Member{GroupKind: gk, Namespace: namespace, Name: name, PartOfAppliedBy: []string{"kubectl"}}
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

	labelledByUpdate := func(m Member) Member {
		m.PartOfAppliedBy = nil
		return m
	}
	clusterKey := applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ClusterApplySet"}, Name: "platform"}
	clusterParent := func(annotations map[string]string) applyset.Parent {
		annotations[applyset.ToolingAnnotation] = "kubectl/v1.37.1"
		return applyset.ParseParent(clusterKey, map[string]string{applyset.IDLabel: clusterKey.ID()}, annotations)
	}
	watched := map[schema.GroupKind]ResourceType{
		configMap: {Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, GroupKind: configMap, Namespaced: true},
		deployment: {Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			GroupKind: deployment, Namespaced: true},
		{Kind: "Namespace"}: {Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, GroupKind: schema.GroupKind{Kind: "Namespace"}},
	}
	typeOf := func(gk schema.GroupKind) (ResourceType, bool) { rt, ok := watched[gk]; return rt, ok }
	typeOfResource := func(gr schema.GroupResource) (ResourceType, bool) {
		for _, rt := range watched {
			if rt.Resource.GroupResource() == gr {
				return rt, true
			}
		}
		return ResourceType{}, false
	}
	deploymentsUnlistable := []TypeFailure{{ResourceType: watched[deployment], Err: errors.New("conversion webhook unavailable")}}

	tests := []struct {
		name        string
		parent      applyset.Parent
		members     []Member
		failing     []TypeFailure
		wantReasons []string
		wantHint    string
		wantRepair  bool
	}{
		{
			name:     "a healthy set",
			parent:   parent("ConfigMap,Deployment.apps"),
			members:  []Member{member(configMap, "home", "a"), member(deployment, "home", "web")},
			wantHint: "ConfigMap,Deployment.apps",
		},
		{
			name:     "a hint listing more kinds than the members have is no problem, and kept",
			parent:   parent("ConfigMap,Deployment.apps"),
			members:  []Member{member(configMap, "home", "a")},
			wantHint: "ConfigMap,Deployment.apps",
		},
		{
			name:        "a member of a kind the hint omits",
			parent:      parent("ConfigMap"),
			members:     []Member{member(configMap, "home", "a"), member(deployment, "home", "web")},
			wantReasons: []string{ReasonHintIncomplete},
			wantHint:    "ConfigMap,Deployment.apps",
			wantRepair:  true,
		},
		{
			name:        "a member outside the scope",
			parent:      parent("ConfigMap"),
			members:     []Member{member(configMap, "elsewhere", "a")},
			wantReasons: []string{ReasonMemberOutOfScope},
			wantHint:    "ConfigMap",
		},
		{
			name:     "members in additional namespaces and at cluster scope are in scope",
			parent:   parent("ConfigMap,Namespace", applyset.AdditionalNamespacesAnnotation, "extra"),
			members:  []Member{member(configMap, "extra", "a"), member(schema.GroupKind{Kind: "Namespace"}, "", "extra")},
			wantHint: "ConfigMap,Namespace",
		},
		{
			name:        "a member another object owns",
			parent:      parent("ConfigMap"),
			members:     []Member{member(configMap, "home", "a", "someone-else")},
			wantReasons: []string{reasonOwnershipConflict},
			wantHint:    "ConfigMap",
		},
		{
			name:     "a member the parent owns",
			parent:   parent("ConfigMap"),
			members:  []Member{member(configMap, "home", "a", "someone-else", parentUID)},
			wantHint: "ConfigMap",
		},
		{
			name:        "a member of an omitted kind whose label no apply of the tooling wrote is reported, not added",
			parent:      parent("ConfigMap"),
			members:     []Member{member(configMap, "home", "a"), labelledByUpdate(member(deployment, "home", "web"))},
			wantReasons: []string{ReasonHintIncomplete},
			wantHint:    "ConfigMap",
		},
		{
			name: "the deprecated resources hint is checked like the kinds hint",
			parent: applyset.ParseParent(key, map[string]string{applyset.IDLabel: key.ID()}, map[string]string{
				applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupResourcesAnnotation: "configmaps"}),
			members:     []Member{member(configMap, "home", "a"), member(deployment, "home", "web")},
			wantReasons: []string{ReasonHintIncomplete},
			wantHint:    "ConfigMap,Deployment.apps",
			wantRepair:  true,
		},
		{
			name:     "the deprecated resources hint covering every member",
			parent:   applyset.ParseParent(key, map[string]string{applyset.IDLabel: key.ID()}, map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupResourcesAnnotation: "configmaps,deployments.apps"}),
			members:  []Member{member(configMap, "home", "a"), member(deployment, "home", "web")},
			wantHint: "ConfigMap,Deployment.apps",
		},
		{
			name:        "a cluster-scoped parent whose hint lists namespaced kinds but no namespace",
			parent:      clusterParent(map[string]string{applyset.GroupKindsAnnotation: "ConfigMap,Namespace"}),
			members:     []Member{member(schema.GroupKind{Kind: "Namespace"}, "", "team")},
			wantReasons: []string{reasonHintNamespacesMissing},
			wantHint:    "ConfigMap,Namespace",
		},
		{
			name: "a cluster-scoped parent with namespaces for its namespaced kinds",
			parent: clusterParent(map[string]string{applyset.GroupKindsAnnotation: "ConfigMap",
				applyset.AdditionalNamespacesAnnotation: "team"}),
			members:  []Member{member(configMap, "team", "a")},
			wantHint: "ConfigMap",
		},
		{
			name:        "a kind of the hint that cannot be listed makes the findings incomplete",
			parent:      parent("ConfigMap,Deployment.apps"),
			members:     []Member{member(configMap, "home", "a")},
			failing:     deploymentsUnlistable,
			wantReasons: []string{ReasonMembershipIncomplete},
			wantHint:    "ConfigMap,Deployment.apps",
		},
		{
			name:     "a kind outside the hint that cannot be listed concerns the parent not",
			parent:   parent("ConfigMap"),
			members:  []Member{member(configMap, "home", "a")},
			failing:  deploymentsUnlistable,
			wantHint: "ConfigMap",
		},
		{
			name: "an untrusted parent judges no members",
			parent: applyset.ParseParent(key, map[string]string{applyset.IDLabel: "applyset-copied-v1"},
				map[string]string{applyset.ToolingAnnotation: "kubectl/v1", applyset.GroupKindsAnnotation: ""}),
			members:     []Member{member(configMap, "elsewhere", "a", "someone-else")},
			wantReasons: []string{applyset.ReasonIDMismatch},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Verify(tt.parent, Facts{ParentUID: parentUID, Members: tt.members, TypeOf: typeOf, TypeOfResource: typeOfResource,
				Appliers: sets.New("kubectl"), Failing: tt.failing})
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
			if v.NeedsRepair() != tt.wantRepair {
				t.Errorf("NeedsRepair() = %v, want %v", v.NeedsRepair(), tt.wantRepair)
			}
			if v.Clean() != (len(tt.wantReasons) == 0) {
				t.Errorf("Healthy() = %v", v.Clean())
			}
		})
	}
}

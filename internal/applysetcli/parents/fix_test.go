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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestPlanFix(t *testing.T) {
	key := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "home", Name: "web"}
	parent := func(tooling, kinds string, extra map[string]string) checkedParent {
		annotations := map[string]string{applyset.ToolingAnnotation: tooling, applyset.GroupKindsAnnotation: kinds}
		for k, v := range extra {
			annotations[k] = v
		}
		labels := map[string]string{applyset.IDLabel: key.ID()}
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "home", Name: "web", Labels: labels, Annotations: annotations}}
		ref := membership.ParentRef{Type: membership.ResourceType{GroupKind: key.GroupKind}, Namespace: "home", Name: "web"}
		return checkedParent{Parent: membership.Parent{Ref: ref, Object: obj}, verdict: membership.Verify(
			applyset.ParseParent(key, labels, annotations), membership.Facts{Appliers: membership.NewAppliers(identity.TrustedAppliers()).Of("kubectl"),
				Members: []membership.Member{
					{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "home", Name: "a", UID: types.UID("a"), PartOfAppliedBy: []string{"kubectl"}},
					{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "far", Name: "b", UID: types.UID("b"), PartOfAppliedBy: []string{"kubectl"}},
					{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "home", Name: "labelled", UID: types.UID("c")},
				}})}
	}
	tests := []struct {
		name      string
		parent    checkedParent
		wantAfter [2]string
		wantWhy   string
		noChange  bool
	}{
		{name: "kinds and namespaces of the applied members; an unvouched member's kind is not added",
			parent: parent("kubectl/v1.37.1", "Deployment.apps", nil), wantAfter: [2]string{"ConfigMap", "far"}},
		{name: "already right", parent: parent("kubectl/v1.37.1", "ConfigMap", map[string]string{applyset.AdditionalNamespacesAnnotation: "far"}),
			noChange: true},
		{name: "the operator's own sets", parent: parent("applyset-operator/v0.1.0", "", nil), wantWhy: "the operator keeps the hints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix, why := planFix(tt.parent)
			switch {
			case tt.wantWhy != "":
				if fix != nil || why == "" || !strings.Contains(why, tt.wantWhy) {
					t.Fatalf("planFix = %v, %q; want no fix because %q", fix, why, tt.wantWhy)
				}
			case tt.noChange:
				if fix != nil || why != "" {
					t.Fatalf("planFix = %+v, %q; want nothing to do", fix, why)
				}
			default:
				if fix == nil || fix.after != tt.wantAfter {
					t.Fatalf("planFix = %+v (%q); want hints %q", fix, why, tt.wantAfter)
				}
			}
		})
	}
}

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

package declared

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// TestDeletionRule follows the deletion table: what deleting a set does to
// its members, by spec.
func TestDeletionRule(t *testing.T) {
	cm := schema.GroupKind{Kind: "ConfigMap"}
	parent := applyset.Parent{ID: "applyset-x-v1", GroupKinds: sets.New(cm), Scope: applyset.Scope{Namespace: "shop"}}
	members := []apply.ObjectRef{ref(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "team", "web")}
	proves := apply.Proof(func(apply.ObjectRef, *metav1.PartialObjectMetadata) bool { return true })
	tests := []struct {
		name        string
		spec        applyv1alpha1.CommonSpec
		wantKept    bool
		wantDisband bool
	}{
		{name: "Delete, the default", spec: applyv1alpha1.CommonSpec{}},
		{name: "Orphan", spec: applyv1alpha1.CommonSpec{DeletionPolicy: applyv1alpha1.DeletionPolicyOrphan}, wantDisband: true},
		{name: "suspended", spec: applyv1alpha1.CommonSpec{Suspend: ptr.To(true)}, wantKept: true},
		{name: "previewing", spec: applyv1alpha1.CommonSpec{DryRun: ptr.To(true)}, wantKept: true},
		{name: "suspended, whatever the policy", spec: applyv1alpha1.CommonSpec{Suspend: ptr.To(true),
			DeletionPolicy: applyv1alpha1.DeletionPolicyDelete}, wantKept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "set-uid"}}
			set.Spec.CommonSpec = tt.spec
			if got := KeepsMembers(set) != ""; got != tt.wantKept {
				t.Fatalf("KeepsMembers = %q, want kept %v", KeepsMembers(set), tt.wantKept)
			}
			prune, disband := Release(set, parent, members, proves)
			if (disband != nil) != tt.wantDisband || (prune != nil) == tt.wantDisband {
				t.Fatalf("Release = prune %+v, disband %+v", prune, disband)
			}
			kinds, scope, proven := sets.Set[schema.GroupKind](nil), applyset.Scope{}, apply.Proof(nil)
			if prune != nil {
				kinds, scope, proven = prune.Kinds, prune.Scope, prune.Proven
				if prune.Keep.Len() != 0 || prune.ParentUID != "set-uid" {
					t.Errorf("the prune keeps %v, parent %q", prune.Keep, prune.ParentUID)
				}
			} else {
				kinds, scope, proven = disband.Kinds, disband.Scope, disband.Proven
			}
			if !kinds.Equal(sets.New(cm, members[0].GroupKind)) || !scope.AdditionalNamespaces.Equal(sets.New("team")) || proven == nil {
				t.Errorf("it does not look where the members are, or proves nothing: %v in %v", kinds.UnsortedList(), scope)
			}
		})
	}
}

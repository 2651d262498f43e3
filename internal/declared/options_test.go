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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// TestHintLifeCycle follows a set's hints through one reconcile: widened by
// the parent's current hints and the recorded members before the apply, narrowed after the prune to
// the declared objects and the members the prune kept.
func TestHintLifeCycle(t *testing.T) {
	cm := schema.GroupKind{Kind: "ConfigMap"}
	deploy := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	secret := schema.GroupKind{Kind: "Secret"}
	job := schema.GroupKind{Group: "batch", Kind: "Job"}

	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}}
	parentKey := applyset.ParentKey{GroupKind: schema.GroupKind{Group: applyv1alpha1.GroupVersion.Group, Kind: "ApplySet"}, Namespace: "shop", Name: "web"}
	parent := applyset.Parent{Key: parentKey, GroupKinds: sets.New(cm, secret),
		Scope: applyset.Scope{Namespace: "shop", AdditionalNamespaces: sets.New("old")}}
	objects := []apply.Object{object(cm, "shop", "a"), object(deploy, "team", "b"), object(cm, "shop", "c")}

	plan := NewOptions(set, parent, objects, []apply.ObjectRef{ref(job, "recorded", "j")}, parentKey.ID(), false)
	assertHints(t, "declared", plan.Declared, sets.New(cm, deploy), sets.New("team"))
	assertHints(t, "widened", plan.Widened, sets.New(cm, deploy, secret, job), sets.New("team", "old", "recorded"))
	if plan.Prune == nil || !plan.Prune.Scope.AdditionalNamespaces.Equal(sets.New("team", "old", "recorded")) {
		t.Errorf("the prune does not reach across the widened hints: %+v", plan.Prune)
	}
	// Members are only where the parent's hints or the inventory say; a kind
	// declared for the first time is checked, not listed.
	if !plan.Prune.Kinds.Equal(sets.New(cm, secret, job)) || !plan.Prune.Unlisted.Equal(sets.New(deploy)) {
		t.Errorf("the prune lists %v and checks %v, want %v and %v", plan.Prune.Kinds, plan.Prune.Unlisted, sets.New(cm, secret, job), sets.New(deploy))
	}

	tests := []struct {
		name           string
		pruned         []apply.Change
		wantKinds      sets.Set[schema.GroupKind]
		wantNamespaces sets.Set[string]
	}{
		{name: "everything pruned", pruned: []apply.Change{
			{Ref: ref(secret, "old", "s"), Action: apply.Pruned}, {Ref: ref(cm, "shop", "gone"), Action: apply.Pruned},
		}, wantKinds: sets.New(cm, deploy), wantNamespaces: sets.New("team")},
		{name: "kept members keep their kind and namespace", pruned: []apply.Change{
			{Ref: ref(secret, "old", "s"), Action: apply.Skipped, Reason: "owned by another object"},
			{Ref: ref(job, "shop", "j"), Action: apply.Failed},
		}, wantKinds: sets.New(cm, deploy, secret, job), wantNamespaces: sets.New("team", "old")},
		{name: "a delete still waiting keeps its kind", pruned: []apply.Change{
			{Ref: ref(job, "later", "j"), Action: apply.Waiting},
		}, wantKinds: sets.New(cm, deploy, job), wantNamespaces: sets.New("team", "later")},
		{name: "a foreign object keeps its kind reachable", pruned: []apply.Change{
			{Ref: ref(secret, "copied", "child"), Action: apply.Foreign},
		}, wantKinds: sets.New(cm, deploy, secret), wantNamespaces: sets.New("team", "copied")},
		{name: "the set's own namespace is never listed", pruned: []apply.Change{
			{Ref: ref(secret, "shop", "s"), Action: apply.Skipped},
		}, wantKinds: sets.New(cm, deploy, secret), wantNamespaces: sets.New("team")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertHints(t, "narrowed", plan.Narrowed(apply.ChangeSet{Changes: tt.pruned}), tt.wantKinds, tt.wantNamespaces)
		})
	}
}

func assertHints(t *testing.T, what string, got Hints, kinds sets.Set[schema.GroupKind], namespaces sets.Set[string]) {
	t.Helper()
	if !got.Kinds.Equal(kinds) {
		t.Errorf("%s kinds = %v, want %v", what, got.Kinds.UnsortedList(), kinds.UnsortedList())
	}
	if !got.Namespaces.Equal(namespaces) {
		t.Errorf("%s namespaces = %v, want %v", what, sets.List(got.Namespaces), sets.List(namespaces))
	}
}

func ref(gk schema.GroupKind, namespace, name string) apply.ObjectRef {
	return apply.ObjectRef{GroupKind: gk, Namespace: namespace, Name: name}
}

func object(gk schema.GroupKind, namespace, name string) apply.Object {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gk.WithVersion("v1"))
	u.SetNamespace(namespace)
	u.SetName(name)
	return apply.Object{Input: apply.Input{Object: u}}
}

// TestReach: a set being deleted looks for its members across its parent's
// hints and its recorded members, whichever names more.
func TestReach(t *testing.T) {
	cm := schema.GroupKind{Kind: "ConfigMap"}
	job := schema.GroupKind{Group: "batch", Kind: "Job"}
	tests := []struct {
		name           string
		parent         applyset.Parent
		members        []apply.ObjectRef
		wantKinds      sets.Set[schema.GroupKind]
		wantNamespaces sets.Set[string]
	}{
		{
			name:      "hints and members",
			parent:    applyset.Parent{GroupKinds: sets.New(cm), Scope: applyset.Scope{Namespace: "shop", AdditionalNamespaces: sets.New("old")}},
			members:   []apply.ObjectRef{ref(job, "recorded", "j"), ref(cm, "shop", "a")},
			wantKinds: sets.New(cm, job), wantNamespaces: sets.New("old", "recorded"),
		},
		{
			name:      "a parent whose hints were lost",
			parent:    applyset.Parent{Scope: applyset.Scope{Namespace: "shop"}},
			members:   []apply.ObjectRef{ref(job, "shop", "j")},
			wantKinds: sets.New(job), wantNamespaces: sets.New[string](),
		},
		{
			name:      "nothing recorded",
			parent:    applyset.Parent{GroupKinds: sets.New(cm), Scope: applyset.Scope{Namespace: "shop"}},
			wantKinds: sets.New(cm), wantNamespaces: sets.New[string](),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scope, kinds := reachOf(tt.parent, tt.members)
			if !kinds.Equal(tt.wantKinds) || !scope.AdditionalNamespaces.Equal(tt.wantNamespaces) || scope.Namespace != "shop" {
				t.Errorf("reach = %v in %q + %v, want %v in %v", kinds.UnsortedList(), scope.Namespace, sets.List(scope.AdditionalNamespaces),
					tt.wantKinds, sets.List(tt.wantNamespaces))
			}
		})
	}
}

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

package adopt

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestOwnsOnlyPartOf(t *testing.T) {
	label := `{"f:metadata":{"f:labels":{".":{},"f:` + applyset.PartOfLabel + `":{}}}}`
	for fields, want := range map[string]bool{
		label: true,
		`{"f:metadata":{"f:labels":{"f:` + applyset.PartOfLabel + `":{},"f:app":{}}}}`:          false,
		`{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:` + applyset.PartOfLabel + `":{}}}}`: false,
		`{"f:metadata":{"f:annotations":{"f:x":{}}}}`:                                           false,
		`{}`: false,
	} {
		e := metav1.ManagedFieldsEntry{FieldsV1: metav1.NewFieldsV1(fields)}
		if got := ownsOnlyPartOf(e); got != want {
			t.Errorf("ownsOnlyPartOf(%s) = %v, want %v", fields, got, want)
		}
	}
}

func TestJoinFields(t *testing.T) {
	label := `{"f:metadata":{"f:labels":{"f:` + applyset.PartOfLabel + `":{}}}}`
	for _, tc := range []struct{ kubectl, want string }{
		{kubectl: `{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:app":{}}}}`,
			want: `{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:app":{},"f:` + applyset.PartOfLabel + `":{}}}}`},
		{kubectl: label, want: label},
		{kubectl: `{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}}`,
			want: `{"f:metadata":{"f:labels":{"f:` + applyset.PartOfLabel + `":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}}`},
	} {
		got, err := joinFields(metav1.NewFieldsV1(tc.kubectl), metav1.NewFieldsV1(label))
		if err != nil {
			t.Fatal(err)
		}
		if got.GetRawString() != tc.want {
			t.Errorf("joinFields(%s) = %s, want %s", tc.kubectl, got.GetRawString(), tc.want)
		}
	}
	if _, err := joinFields(metav1.NewFieldsV1(`{"x"`), metav1.NewFieldsV1(label)); err == nil {
		t.Error("malformed fields were joined")
	}
}

func TestJudge(t *testing.T) {
	p := &adoptPlan{id: "applyset-mine-v1", parent: membership.ParentRef{Namespace: "shop"}}
	obj := func(labels map[string]string, owners []metav1.OwnerReference) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Labels: labels, OwnerReferences: owners}}
	}
	for want, o := range map[string]*metav1.PartialObjectMetadata{
		"":                              obj(map[string]string{applyset.PartOfLabel: "applyset-mine-v1"}, nil),
		"it is in another set":          obj(map[string]string{applyset.PartOfLabel: "applyset-other-v1"}, nil),
		"it is owned by Deployment web": obj(nil, []metav1.OwnerReference{{Kind: "Deployment", Name: "web"}}),
		"it is in namespace other":      {ObjectMeta: metav1.ObjectMeta{Namespace: "other"}},
	} {
		got := p.judge(o)
		if want == "" && got != "" || !strings.HasPrefix(got, want) {
			t.Errorf("judge = %q, want it to begin with %q", got, want)
		}
	}
}

func TestFluxInventory(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"inventory": map[string]any{"entries": []any{
		map[string]any{"id": "shop_web_apps_Deployment", "v": "v1"},
		map[string]any{"id": "_system__view_rbac.authorization.k8s.io_ClusterRole", "v": "v1"},
		map[string]any{"id": "shop_cm__ConfigMap", "v": "v1"},
	}}}}}
	refs, err := fluxInventory(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := []apply.ObjectRef{
		{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: "shop", Name: "web"},
		{GroupKind: schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}, Name: "system:view"},
		{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "shop", Name: "cm"},
	}
	if !slices.Equal(refs, want) {
		t.Errorf("fluxInventory = %v, want %v", refs, want)
	}
	for _, bad := range []string{"", "shop_web", "shop_web_Deployment", "shop__apps_Deployment", "shop_web_apps_"} {
		if ref, err := parseInventoryID(bad); err == nil {
			t.Errorf("parseInventoryID(%q) = %v, want an error", bad, ref)
		}
	}
	if _, err := fluxInventory(&unstructured.Unstructured{Object: map[string]any{}}); err == nil {
		t.Error("a Kustomization without an inventory was read as empty")
	}
}

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

	"github.com/fluxcd/cli-utils/pkg/object"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

func TestCliUtilsInventories(t *testing.T) {
	want := []apply.ObjectRef{
		{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "shop", Name: "web"},
		{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: "shop", Name: "web"},
		{GroupKind: schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}, Name: "system:web"},
	}
	// cli-utils writes each key with its own ObjMetadata.String.
	data := map[string]any{}
	for _, ref := range want {
		data[object.ObjMetadata{GroupKind: ref.GroupKind, Namespace: ref.Namespace, Name: ref.Name}.String()] = `{"actuation":"Succeeded"}`
	}
	refs, err := configMapInventory(&unstructured.Unstructured{Object: map[string]any{"data": data}})
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(want)
	slices.SortFunc(sorted, func(a, b apply.ObjectRef) int { return strings.Compare(a.String(), b.String()) })
	slices.SortFunc(refs, func(a, b apply.ObjectRef) int { return strings.Compare(a.String(), b.String()) })
	if !slices.Equal(refs, sorted) {
		t.Errorf("configMapInventory = %v, want %v", refs, sorted)
	}
	if _, err := configMapInventory(&unstructured.Unstructured{Object: map[string]any{"data": map[string]any{"no-id": ""}}}); err == nil {
		t.Error("a data key that names no object was read")
	}

	resources := []any{}
	for _, ref := range want {
		resources = append(resources, map[string]any{"group": ref.GroupKind.Group, "kind": " " + ref.GroupKind.Kind, "namespace": ref.Namespace, "name": ref.Name})
	}
	refs, err = resourceGroupInventory(&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"resources": resources}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(refs, want) {
		t.Errorf("resourceGroupInventory = %v, want %v", refs, want)
	}
	for name, obj := range map[string]map[string]any{
		"no resources":        {"spec": map[string]any{}},
		"an entry of no kind": {"spec": map[string]any{"resources": []any{map[string]any{"name": "web"}}}},
		"not a list":          {"spec": map[string]any{"resources": "web"}},
	} {
		if refs, err := resourceGroupInventory(&unstructured.Unstructured{Object: obj}); err == nil {
			t.Errorf("%s: read as %v", name, refs)
		}
	}
}

func TestConfigSyncKey(t *testing.T) {
	for want, meta := range map[string]map[string]any{
		"configsync.gke.io/declared-version": {"labels": map[string]any{"configsync.gke.io/declared-version": "v1"}},
		"configmanagement.gke.io/managed":    {"annotations": map[string]any{"configmanagement.gke.io/managed": "enabled"}},
		"hnc.configsync.gke.io/x":            {"labels": map[string]any{"hnc.configsync.gke.io/x": "y"}},
		"":                                   {"labels": map[string]any{"cli-utils.sigs.k8s.io/inventory-id": "x", "notconfigsync.gke.io/x": "y"}},
	} {
		obj := &unstructured.Unstructured{Object: map[string]any{"metadata": meta}}
		if got := configSyncKey(obj); got != want {
			t.Errorf("configSyncKey(%v) = %q, want %q", meta, got, want)
		}
	}
}

// FuzzParseInventoryID feeds the readers of cli-utils' and Flux's object IDs
// any string: they return a reference with a kind and a name, or an error.
func FuzzParseInventoryID(f *testing.F) {
	for _, seed := range []string{"shop_web_apps_Deployment", "_system__view_rbac.authorization.k8s.io_ClusterRole", "shop_web__ConfigMap", "___", "a_b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		ref, err := parseInventoryID(id)
		if err == nil && (ref.GroupKind.Kind == "" || ref.Name == "") {
			t.Errorf("parseInventoryID(%q) = %v, without kind or name", id, ref)
		}
	})
}

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
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// cli-utils (kpt live, and the tools built on it) keeps the objects it
// applied in an inventory object: a ConfigMap whose data keys name them, or
// kpt's ResourceGroup. Both carry the inventory's ID as a label.
const cliUtilsInventoryLabel = "cli-utils.sigs.k8s.io/inventory-id"

// resourceGroupResource is kpt's ResourceGroup.
var resourceGroupResource = schema.GroupResource{Group: "kpt.dev", Resource: "resourcegroups"}

// configSyncDomains mark the labels and annotations Config Sync writes on
// the ResourceGroups its reconcilers keep: a sign that they still apply and
// prune the inventory's objects.
var configSyncDomains = []string{"configsync.gke.io", "configmanagement.gke.io"}

// resourceGroupKind is --from resourcegroup/NAME.
var resourceGroupKind = fromKind{typ: "resourcegroup", group: resourceGroupResource.Group, records: "kpt ResourceGroups", tool: "kpt",
	help: []string{
		"kpt's ResourceGroup inventory: spec.resources (not while Config",
		"Sync keeps it)",
	},
	open: func(n named) source { return resourceGroupSource{n} }}

// inventoryKind is --from inventory/NAME.
var inventoryKind = fromKind{typ: "inventory", records: "cli-utils inventory ConfigMaps", tool: "cli-utils",
	help: []string{"cli-utils' inventory ConfigMap: its data keys"},
	open: func(n named) source { return inventorySource{n} }}

// cliUtilsAppliers are the field managers kpt live and cli-utils apply
// under by default.
var cliUtilsAppliers = []string{identity.KubectlFieldManager}

// resourceGroupSource is kpt's inventory: a ResourceGroup's spec.resources.
type resourceGroupSource struct{ named }

func (s resourceGroupSource) read(ctx context.Context, c *cli.Clients) (adoptGroup, error) {
	obj, group, err := s.readObject(ctx, c, resourceGroupResource, resourceGroupInventory)
	if err != nil {
		return group, err
	}
	group.appliers = cliUtilsAppliers
	if key := configSyncKey(obj); key != "" {
		group.active = append(group.active, fmt.Sprintf("%s carries Config Sync's %s: its reconciler would apply these objects again "+
			"and prune them; stop syncing them first", s, key))
	}
	group.notes = append(group.notes, cliUtilsNotes(s.String(), "resourcegroup", s.namespace, s.name)...)
	return group, nil
}

// resourceGroupInventory reads spec.resources[]: group, kind, name,
// namespace, trimmed as kpt reads them.
func resourceGroupInventory(obj *unstructured.Unstructured) ([]apply.ObjectRef, error) {
	resources, found, err := unstructured.NestedSlice(obj.Object, "spec", "resources")
	switch {
	case err != nil:
		return nil, fmt.Errorf("spec.resources: %w", err)
	case !found:
		return nil, fmt.Errorf("no spec.resources: the inventory is empty")
	}
	refs := make([]apply.ObjectRef, 0, len(resources))
	for _, r := range resources {
		entry, _ := r.(map[string]any)
		ref := apply.ObjectRef{GroupKind: schema.GroupKind{Group: strings.TrimSpace(str(entry, "group")), Kind: strings.TrimSpace(str(entry, "kind"))},
			Namespace: str(entry, "namespace"), Name: str(entry, "name")}
		if ref.GroupKind.Kind == "" || ref.Name == "" {
			return nil, fmt.Errorf("spec.resources holds an entry without kind or name: %v", entry)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// configSyncKey names a label or annotation Config Sync wrote, or nothing.
func configSyncKey(obj *unstructured.Unstructured) string {
	for _, keys := range []map[string]string{obj.GetLabels(), obj.GetAnnotations()} {
		for key := range keys {
			prefix, _, ok := strings.Cut(key, "/")
			for _, domain := range configSyncDomains {
				if ok && (prefix == domain || strings.HasSuffix(prefix, "."+domain)) {
					return key
				}
			}
		}
	}
	return ""
}

// inventorySource is cli-utils' inventory ConfigMap: its data keys are
// <namespace>_<name>_<group>_<kind>, its values the objects' last status.
type inventorySource struct{ named }

func (s inventorySource) read(ctx context.Context, c *cli.Clients) (adoptGroup, error) {
	_, group, err := s.readObject(ctx, c, schema.GroupResource{Resource: "configmaps"}, inventoryEntries)
	if err != nil {
		return group, err
	}
	group.appliers = cliUtilsAppliers
	group.notes = cliUtilsNotes(s.String(), "configmap", s.namespace, s.name)
	return group, nil
}

// inventoryEntries reads a ConfigMap that carries cli-utils' inventory
// label: no other is an inventory.
func inventoryEntries(obj *unstructured.Unstructured) ([]apply.ObjectRef, error) {
	if _, ok := obj.GetLabels()[cliUtilsInventoryLabel]; !ok {
		return nil, fmt.Errorf("ConfigMap %s has no %s label: it is no cli-utils inventory", obj.GetName(), cliUtilsInventoryLabel)
	}
	return configMapInventory(obj)
}

// configMapInventory reads the data keys, in order.
func configMapInventory(obj *unstructured.Unstructured) ([]apply.ObjectRef, error) {
	data, _, err := unstructured.NestedStringMap(obj.Object, "data")
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	keys := make([]string, 0, len(data))
	for key := range data {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	refs := make([]apply.ObjectRef, 0, len(keys))
	for _, key := range keys {
		ref, err := parseInventoryID(key)
		if err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// cliUtilsNotes say what kpt live and cli-utils still do with an inventory
// that names the adopted objects.
func cliUtilsNotes(source, kind, namespace, name string) []string {
	return []string{
		fmt.Sprintf("%s still names these objects: kpt live destroy (a cli-utils destroy) of it deletes them, and kpt live apply "+
			"of its package applies them again and prunes those the package no longer holds; once adopted, delete the inventory alone, "+
			"which deletes no object: kubectl delete %s %s -n %s", source, kind, name, namespace),
	}
}

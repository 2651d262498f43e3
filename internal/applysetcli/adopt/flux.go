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
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// kustomizationResource is Flux's Kustomization.
var kustomizationResource = schema.GroupResource{Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations"}

// fluxKind is --from kustomization/NAME.
var fluxKind = fromKind{typ: "kustomization", group: kustomizationResource.Group, records: "Flux Kustomizations", tool: "Flux",
	help: []string{"a Flux Kustomization's status.inventory (it must be suspended)"},
	open: func(n named) source { return fluxSource{n} }}

// fluxSource is the inventory kustomize-controller records in a
// Kustomization's status: the objects it applied and would prune.
type fluxSource struct{ named }

func (s fluxSource) read(ctx context.Context, c *cli.Clients) (adoptGroup, error) {
	obj, group, err := s.readObject(ctx, c, kustomizationResource, fluxInventory)
	if err != nil {
		return group, err
	}
	group.appliers = []string{"kustomize-controller"}
	if suspended, _, _ := unstructured.NestedBool(obj.Object, "spec", "suspend"); !suspended {
		group.active = append(group.active, fmt.Sprintf("%s is not suspended: kustomize-controller would apply these objects again, "+
			"take over the fields kubectl's field manager applied, and prune; suspend it first (spec.suspend: true, flux suspend kustomization %s)", s, s.name))
	}
	if prune, _, _ := unstructured.NestedBool(obj.Object, "spec", "prune"); prune {
		group.notes = append(group.notes, fmt.Sprintf("%s has spec.prune: true: deleting it while it is not suspended deletes "+
			"every object of its inventory, these included; set spec.prune: false before deleting it", s))
	}
	group.notes = append(group.notes, fmt.Sprintf("resuming %s makes kustomize-controller apply these objects again as its own", s))
	return group, nil
}

// fluxInventory reads status.inventory.entries[].id, written
// <namespace>_<name>_<group>_<kind> as cli-utils writes object metadata.
func fluxInventory(obj *unstructured.Unstructured) ([]apply.ObjectRef, error) {
	entries, found, err := unstructured.NestedSlice(obj.Object, "status", "inventory", "entries")
	switch {
	case err != nil:
		return nil, fmt.Errorf("status.inventory.entries: %w", err)
	case !found:
		return nil, fmt.Errorf("no status.inventory: kustomize-controller has recorded no objects")
	}
	refs := make([]apply.ObjectRef, 0, len(entries))
	for _, e := range entries {
		entry, _ := e.(map[string]any)
		id, _ := entry["id"].(string)
		ref, err := parseInventoryID(id)
		if err != nil {
			return nil, fmt.Errorf("status.inventory.entries: %w", err)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// parseInventoryID reads <namespace>_<name>_<group>_<kind>. No namespace,
// group or kind holds an underscore; a name's colon (RBAC's system:view) is
// written as two underscores.
func parseInventoryID(id string) (apply.ObjectRef, error) {
	namespace, rest, ok := strings.Cut(id, "_")
	i := strings.LastIndex(rest, "_")
	j := strings.LastIndex(rest[:max(i, 0)], "_")
	if !ok || j < 1 || i == len(rest)-1 {
		return apply.ObjectRef{}, fmt.Errorf("%q is not <namespace>_<name>_<group>_<kind>", id)
	}
	name := strings.ReplaceAll(rest[:j], "__", ":")
	return apply.ObjectRef{GroupKind: schema.GroupKind{Group: rest[j+1 : i], Kind: rest[i+1:]}, Namespace: namespace, Name: name}, nil
}

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

package apply

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// DependsOnAnnotation lists the objects an object needs first, in the
// format of kpt and cli-utils: <group>/namespaces/<namespace>/<kind>/<name>
// for a namespaced object, <group>/<kind>/<name> for a cluster-scoped one
// (the core group is empty: /namespaces/default/Secret/creds), comma-separated.
const DependsOnAnnotation = "config.kubernetes.io/depends-on"

// ParseDependsOn reads a depends-on annotation value.
func ParseDependsOn(value string) ([]ObjectRef, error) {
	var refs []ObjectRef
	for i, entry := range strings.Split(value, ",") {
		entry = strings.TrimSpace(entry)
		parts := strings.Split(entry, "/")
		var ref ObjectRef
		switch {
		case len(parts) == 5 && parts[1] == "namespaces":
			ref = ObjectRef{GroupKind: schema.GroupKind{Group: parts[0], Kind: parts[3]}, Namespace: parts[2], Name: parts[4]}
		case len(parts) == 3:
			ref = ObjectRef{GroupKind: schema.GroupKind{Group: parts[0], Kind: parts[1]}, Name: parts[2]}
		default:
			return nil, fmt.Errorf("entry %d of %s, %q, is neither GROUP/namespaces/NAMESPACE/KIND/NAME nor GROUP/KIND/NAME",
				i+1, DependsOnAnnotation, entry)
		}
		if ref.GroupKind.Kind == "" || ref.Name == "" || (len(parts) == 5 && ref.Namespace == "") {
			return nil, fmt.Errorf("entry %d of %s, %q, names no kind, name or namespace", i+1, DependsOnAnnotation, entry)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// stage is the implicit apply order of a kind, before any depends-on:
// what others need to exist comes first.
func stage(gk schema.GroupKind) int {
	switch {
	case gk == crdGroupKind || gk == namespaceGroupKind:
		return 0
	case gk.Group == "" && (gk.Kind == "ServiceAccount" || gk.Kind == "ConfigMap" || gk.Kind == "Secret"),
		gk.Group == "rbac.authorization.k8s.io":
		return 1
	}
	return 2
}

// node is an object in the apply order: its identity and what it depends on.
type node struct {
	ref       ObjectRef
	dependsOn []ObjectRef
}

// groups orders nodes: a node's group is after the implicit stage of its
// kind and after the group of every node of the set it depends on. It
// returns each node's group, and the dependencies that are not in the set.
// A circle of dependencies is an error that names it.
func groups(nodes []node) (map[ObjectRef]int, []ObjectRef, error) {
	inSet := map[ObjectRef]node{}
	for _, n := range nodes {
		inSet[n.ref] = n
	}
	group := map[ObjectRef]int{}
	external := sets.New[ObjectRef]()
	const visiting = -1
	var place func(n node, path []ObjectRef) error
	place = func(n node, path []ObjectRef) error {
		switch g, seen := group[n.ref]; {
		case seen && g == visiting:
			return fmt.Errorf("the objects depend on each other in a circle: %s", circle(path, n.ref))
		case seen:
			return nil
		}
		group[n.ref] = visiting
		g := stage(n.ref.GroupKind)
		for _, dep := range n.dependsOn {
			d, ok := inSet[dep]
			if !ok {
				external.Insert(dep)
				continue
			}
			if err := place(d, append(path, n.ref)); err != nil {
				return err
			}
			g = max(g, group[dep]+1)
		}
		group[n.ref] = g
		return nil
	}
	for _, n := range nodes {
		if err := place(n, nil); err != nil {
			return nil, nil, err
		}
	}
	ext := external.UnsortedList()
	slices.SortFunc(ext, func(a, b ObjectRef) int { return cmp.Compare(a.String(), b.String()) })
	return group, ext, nil
}

// circle names the part of path that starts at ref, and ref again.
func circle(path []ObjectRef, ref ObjectRef) string {
	start := slices.Index(path, ref)
	names := make([]string, 0, len(path)-start+1)
	for _, r := range path[max(start, 0):] {
		names = append(names, r.String())
	}
	return strings.Join(append(names, ref.String()), " -> ")
}

// Order puts the objects into apply groups: CRDs and Namespaces first;
// ServiceAccounts, RBAC, ConfigMaps and Secrets next; the rest after; and
// every object after those of the set it names in its depends-on annotation.
// It records each object's group and dependencies, and returns the
// dependencies that are not in the set, which must exist in the cluster.
func Order(objects []Object) ([]ObjectRef, error) {
	nodes := make([]node, 0, len(objects))
	var problems []error
	for i, o := range objects {
		n := node{ref: o.Ref()}
		if value, ok := o.Object.GetAnnotations()[DependsOnAnnotation]; ok {
			deps, err := ParseDependsOn(value)
			if err != nil {
				problems = append(problems, InputError{Origin: o.Origin, Message: err.Error()})
			}
			n.dependsOn = deps
			objects[i].DependsOn = deps
		}
		nodes = append(nodes, n)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	group, external, err := groups(nodes)
	if err != nil {
		return nil, err
	}
	for i := range objects {
		objects[i].Group = group[objects[i].Ref()]
	}
	return external, nil
}

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

package applyset

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

var (
	kindPattern      = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	subdomainPattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	// resourcePattern admits resource names as kubectl accepts them in
	// --applyset: plural, singular or short names, lower case.
	resourcePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	labelPattern    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
)

// ParseGroupKinds reads a contains-group-kinds value: Kind.group entries (Kind
// alone for the core group) separated by commas. An empty value is an empty set,
// as kubectl writes it for a set with no members.
func ParseGroupKinds(value string) (sets.Set[schema.GroupKind], error) {
	gks := sets.New[schema.GroupKind]()
	if value == "" {
		return gks, nil
	}
	for i, entry := range strings.Split(value, ",") {
		gk := schema.ParseGroupKind(entry)
		if !kindPattern.MatchString(gk.Kind) || (gk.Group != "" && !subdomainPattern.MatchString(gk.Group)) {
			return nil, fmt.Errorf("entry %d of %s, %q, is not Kind or Kind.group", i+1, GroupKindsAnnotation, entry)
		}
		gks.Insert(gk)
	}
	return gks, nil
}

// FormatGroupKinds writes a contains-group-kinds value as kubectl does: each
// kind once, sorted bytewise by its Kind.group spelling, comma-joined.
func FormatGroupKinds(gks sets.Set[schema.GroupKind]) string {
	entries := make([]string, 0, gks.Len())
	for gk := range gks {
		entries = append(entries, gk.String())
	}
	slices.Sort(entries)
	return strings.Join(entries, ",")
}

// ParseGroupResources reads the deprecated contains-group-resources value:
// resource.group entries (resource alone for the core group) separated by commas.
// Mapping them to kinds needs discovery, which is the caller's.
func ParseGroupResources(value string) (sets.Set[schema.GroupResource], error) {
	grs := sets.New[schema.GroupResource]()
	if value == "" {
		return grs, nil
	}
	for i, entry := range strings.Split(value, ",") {
		gr := schema.ParseGroupResource(entry)
		if !resourcePattern.MatchString(gr.Resource) || (gr.Group != "" && !subdomainPattern.MatchString(gr.Group)) {
			return nil, fmt.Errorf("entry %d of %s, %q, is not resource or resource.group", i+1, GroupResourcesAnnotation, entry)
		}
		grs.Insert(gr)
	}
	return grs, nil
}

// ParseNamespaces reads an additional-namespaces value: namespace names
// separated by commas. An empty value is an empty set.
func ParseNamespaces(value string) (sets.Set[string], error) {
	namespaces := sets.New[string]()
	if value == "" {
		return namespaces, nil
	}
	for i, ns := range strings.Split(value, ",") {
		if len(ns) > 63 || !labelPattern.MatchString(ns) {
			return nil, fmt.Errorf("entry %d of %s, %q, is not a namespace name", i+1, AdditionalNamespacesAnnotation, ns)
		}
		namespaces.Insert(ns)
	}
	return namespaces, nil
}

// FormatNamespaces writes an additional-namespaces value as kubectl does: sorted,
// comma-joined, without the parent's own namespace.
func FormatNamespaces(namespaces sets.Set[string], parentNamespace string) string {
	list := sets.List(namespaces.Clone().Delete(parentNamespace, ""))
	return strings.Join(list, ",")
}

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
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// IgnoreRule leaves fields of the matching objects to other writers once the
// objects exist: the declared value is applied on create, and afterwards the
// apply carries whatever value the field has, so it neither changes the field
// nor removes it.
type IgnoreRule struct {
	GroupKind schema.GroupKind
	// Namespace and Name narrow the rule; empty matches any.
	Namespace, Name string
	// Paths are field paths as lists of field names (.spec.replicas is
	// [spec replicas]).
	Paths [][]string
}

// ParseFieldPath reads a .spec.replicas path into its field names.
func ParseFieldPath(path string) ([]string, error) {
	if !strings.HasPrefix(path, ".") || len(path) < 2 {
		return nil, fmt.Errorf("field path %q does not start with a dot and a field name", path)
	}
	names := strings.Split(path[1:], ".")
	for _, n := range names {
		if n == "" {
			return nil, fmt.Errorf("field path %q has an empty field name", path)
		}
	}
	return names, nil
}

func (r IgnoreRule) matches(ref ObjectRef) bool {
	return r.GroupKind == ref.GroupKind && (r.Namespace == "" || r.Namespace == ref.Namespace) &&
		(r.Name == "" || r.Name == ref.Name)
}

// ignoredPaths returns the paths of the rules that match ref.
func ignoredPaths(ref ObjectRef, rules []IgnoreRule) [][]string {
	var paths [][]string
	for _, r := range rules {
		if r.matches(ref) {
			paths = append(paths, r.Paths...)
		}
	}
	return paths
}

// withIgnoredLeft is desired with the fields at paths as they are in
// existing: a copy, as desired shares its body with the declaration
// (withPartOf); desired itself when there is nothing to leave.
func withIgnoredLeft(desired, existing *unstructured.Unstructured, paths [][]string) *unstructured.Unstructured {
	if existing == nil || len(paths) == 0 {
		return desired
	}
	out := desired.DeepCopy()
	leaveIgnored(out, existing, paths)
	return out
}

// leaveIgnored sets each ignored path that desired declares to its value in
// existing, or takes it out of desired when existing has none, so that the
// apply leaves the field as others made it.
func leaveIgnored(desired, existing *unstructured.Unstructured, paths [][]string) {
	for _, path := range paths {
		if _, declared, _ := unstructured.NestedFieldNoCopy(desired.Object, path...); !declared {
			continue
		}
		value, found, err := unstructured.NestedFieldCopy(existing.Object, path...)
		if found && err == nil {
			_ = unstructured.SetNestedField(desired.Object, value, path...)
			continue
		}
		unstructured.RemoveNestedField(desired.Object, path...)
	}
}

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
	"reflect"
	"slices"
)

// ignoredFields are set by the API server on every write; they say nothing
// about whether the declared state changed.
var ignoredFields = map[string]bool{
	".metadata.managedFields":     true,
	".metadata.resourceVersion":   true,
	".metadata.generation":        true,
	".metadata.creationTimestamp": true,
	".metadata.uid":               true,
	".status":                     true,
	// The digest changes with any declared field, which the plan names itself.
	".metadata.annotations." + appliedConfigAnnotation: true,
}

// changedFields lists the paths at which before and after differ, as
// .a.b[2].c, sorted. Lists that changed length are reported as a whole.
func changedFields(before, after map[string]any) []string {
	var paths []string
	diffValues("", before, after, &paths)
	slices.Sort(paths)
	return paths
}

func diffValues(path string, before, after any, paths *[]string) {
	if ignoredFields[path] {
		return
	}
	switch b := before.(type) {
	case map[string]any:
		a, ok := after.(map[string]any)
		if !ok {
			break
		}
		for key, bv := range b {
			diffValues(path+"."+key, bv, a[key], paths)
		}
		for key, av := range a {
			if _, ok := b[key]; !ok {
				diffValues(path+"."+key, nil, av, paths)
			}
		}
		return
	case []any:
		a, ok := after.([]any)
		if !ok || len(a) != len(b) {
			break
		}
		for i := range b {
			diffValues(fmt.Sprintf("%s[%d]", path, i), b[i], a[i], paths)
		}
		return
	}
	if !reflect.DeepEqual(before, after) {
		*paths = append(*paths, path)
	}
}

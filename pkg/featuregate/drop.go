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

package featuregate

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Outcome says what Drop did to a request.
type Outcome struct {
	// Dropped are the paths removed from the request, by gate.
	Dropped map[string][]string
	// Kept are the paths whose stored value replaced the request's, by gate.
	Kept map[string][]string
	// Warnings are admission warnings for the client.
	Warnings []string
}

// Changed reports whether Drop changed the request.
func (o Outcome) Changed() bool { return len(o.Dropped) > 0 || len(o.Kept) > 0 }

// Drop applies the gates to obj, the object of a create or update request,
// given old, the stored object (nil on create). For every path whose gate is
// off (its own gate, or a gate on an ancestor path): if old has the path, obj
// gets old's value back; otherwise the path is removed from obj. Paths of gates
// that are on are left alone. A map that a removal empties goes too, except a
// top-level field such as .spec, which the seed's tables keep.
func (s *Set) Drop(obj, old map[string]any) Outcome {
	out := Outcome{}
	for _, gp := range s.active {
		value, inNew := lookup(obj, gp.names)
		if gp.deprecated != "" && inNew {
			out.Warnings = append(out.Warnings, gp.deprecated)
		}
		if gp.enabled {
			continue
		}
		stored, inOld := lookup(old, gp.names)
		switch {
		case inOld && (!inNew || !reflect.DeepEqual(value, stored)):
			put(obj, gp.names, runtime.DeepCopyJSONValue(stored))
			out.Kept = appendTo(out.Kept, gp.gate, gp.path.String())
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s not changed: feature gate %s is disabled", gp.path, gp.gate))
		case !inOld && inNew:
			remove(obj, gp.names)
			out.Dropped = appendTo(out.Dropped, gp.gate, gp.path.String())
		}
	}
	return out
}

func appendTo(m map[string][]string, key, value string) map[string][]string {
	if m == nil {
		m = map[string][]string{}
	}
	m[key] = append(m[key], value)
	return m
}

// under reports whether p lies under (or is) one of paths.
func under(p fieldpath.Path, paths []fieldpath.Path) bool {
	for _, a := range paths {
		if len(a) <= len(p) && a.Equals(p[:len(a)]) {
			return true
		}
	}
	return false
}

func lookup(obj map[string]any, names []string) (any, bool) {
	var cur any = obj
	for _, n := range names {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[n]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// put sets the value at names, creating the maps on the way.
func put(obj map[string]any, names []string, value any) {
	cur := obj
	for _, n := range names[:len(names)-1] {
		next, ok := cur[n].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[n] = next
		}
		cur = next
	}
	cur[names[len(names)-1]] = value
}

// remove deletes the value at names and the maps below the top level that it
// leaves empty.
func remove(obj map[string]any, names []string) {
	parents := []map[string]any{obj}
	cur := obj
	for _, n := range names[:len(names)-1] {
		next, ok := cur[n].(map[string]any)
		if !ok {
			return
		}
		parents = append(parents, next)
		cur = next
	}
	delete(cur, names[len(names)-1])
	for i := len(names) - 2; i >= 1; i-- {
		if len(parents[i+1]) > 0 {
			return
		}
		delete(parents[i], names[i])
	}
}

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
	"strconv"
	"strings"
)

// The CEL below reads objects with index syntax and `in`: gated names may be
// CEL keywords, and a missing or non-map step must read as absent, as lookup
// in drop.go does, rather than fail the expression.

// index is root["a"]["b"] for names a, b.
func index(root string, names []string) string {
	var b strings.Builder
	b.WriteString(root)
	for _, n := range names {
		b.WriteString("[")
		b.WriteString(strconv.Quote(n))
		b.WriteString("]")
	}
	return b.String()
}

// has is true when root holds names through maps only, as lookup is.
func has(root string, names []string) string {
	conds := make([]string, 0, 2*len(names))
	if root == oldObject {
		conds = append(conds, oldObject+" != null") // null on create
	}
	for i, n := range names {
		if i > 0 {
			conds = append(conds, "type("+index(root, names[:i])+") == map")
		}
		conds = append(conds, strconv.Quote(n)+" in "+index(root, names[:i]))
	}
	return strings.Join(conds, " && ")
}

// isMap is true when root holds a map at names.
func isMap(root string, names []string) string {
	return "(" + has(root, names) + " && type(" + index(root, names) + ") == map)"
}

// pointer is the JSON pointer of names; gated names need no escaping.
func pointer(names []string) string {
	return "/" + strings.Join(names, "/")
}

func patchOp(op string, names []string, value string) string {
	if value == "" {
		return "JSONPatch{op: " + strconv.Quote(op) + ", path: " + strconv.Quote(pointer(names)) + "}"
	}
	return "JSONPatch{op: " + strconv.Quote(op) + ", path: " + strconv.Quote(pointer(names)) + ", value: " + value + "}"
}

// restore puts the stored value back at names, creating the maps on the way
// (and replacing a non-map in the way), as put does: the add goes to the first
// step that is not a map, with the rest of the path as nested literals.
func restore(names []string) string {
	expr := "[" + patchOp("add", names, index(oldObject, names)) + "]"
	for i := len(names) - 1; i >= 1; i-- {
		value := index(oldObject, names)
		for j := len(names) - 1; j >= i; j-- {
			value = "{" + strconv.Quote(names[j]) + ": " + value + "}"
		}
		expr = "!" + isMap(object, names[:i]) + " ? [" + patchOp("add", names[:i], value) + "] : " + expr
	}
	return expr
}

// drop removes names and the maps below the top level that the removal
// empties, as remove does: the shallowest map (at depth two or more) whose
// every map down to the field holds one key goes instead of the field.
func drop(names []string) string {
	expr := "[" + patchOp("remove", names, "") + "]"
	// Built from the deepest candidate out, so the shallowest is tested first.
	for d := len(names) - 1; d >= 2; d-- {
		conds := make([]string, 0, len(names)-d)
		for e := d; e < len(names); e++ {
			conds = append(conds, "size("+index(object, names[:e])+") == 1")
		}
		expr = "(" + strings.Join(conds, " && ") + ") ? [" + patchOp("remove", names[:d], "") + "] : " + expr
	}
	return expr
}

// mutation is the JSON patch expression of one path whose gate is off: the
// stored value comes back when the request lacks or changes it; otherwise a
// field the stored object lacks is removed.
func mutation(names []string) string {
	inNew, inOld := has(object, names), has(oldObject, names)
	return "(" + inOld + ") && (!(" + inNew + ") || " + index(object, names) + " != " + index(oldObject, names) + ") ? (" +
		restore(names) + ") : !(" + inOld + ") && (" + inNew + ") ? (" + drop(names) + ") : []"
}

const (
	object    = "object"
	oldObject = "oldObject"
)

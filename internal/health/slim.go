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

package health

import (
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// slimMetadata are the metadata fields Judge reads, and those that name the
// object.
var slimMetadata = []string{"name", "namespace", "uid", "generation", "deletionTimestamp"}

// Slim is as much of obj as Judge reads, and its identity: all of it for a
// kind with a check of its own (an expression may read any field), else its
// type, its name, namespace, uid, generation and deletionTimestamp, its spec
// and its status, which is all kstatus reads. A set keeps this of each
// member it applied until it judges them, rather than whole members: their
// metadata and data are most of the memory a set of 100,000 takes. obj is
// not changed; the slim object shares its spec and status with it.
func (c *Checker) Slim(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if _, ok := c.checks[obj.GroupVersionKind().GroupKind()]; ok {
		out := &unstructured.Unstructured{Object: maps.Clone(obj.Object)}
		if meta, ok := obj.Object["metadata"].(map[string]any); ok {
			meta = maps.Clone(meta)
			delete(meta, "managedFields")
			out.Object["metadata"] = meta
		}
		return out
	}
	out := &unstructured.Unstructured{Object: make(map[string]any, 5)}
	for _, k := range []string{"apiVersion", "kind", "spec", "status"} {
		if v, ok := obj.Object[k]; ok {
			out.Object[k] = v
		}
	}
	if meta, ok := obj.Object["metadata"].(map[string]any); ok {
		trimmed := make(map[string]any, len(slimMetadata))
		for _, k := range slimMetadata {
			if v, ok := meta[k]; ok {
				trimmed[k] = v
			}
		}
		out.Object["metadata"] = trimmed
	}
	return out
}

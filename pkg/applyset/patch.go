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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// ParentFields are the contract fields a tool writes on a parent. A nil field
// is left out of the patch.
type ParentFields struct {
	// ID writes the parent's own ID label.
	ID bool
	// Tooling writes the tooling annotation.
	Tooling *Tooling
	// GroupKinds writes the contains-group-kinds hint.
	GroupKinds sets.Set[schema.GroupKind]
	// AdditionalNamespaces writes the additional-namespaces hint; the parent's
	// own namespace is left out of it.
	AdditionalNamespaces sets.Set[string]
}

// ParentPatch is a server-side apply patch that writes fields on the parent
// key of type gvk, spelled as kubectl spells them. Server-side apply takes
// away from the applying field manager any field it owned and the patch
// leaves out, so a manager must send every field it keeps.
func ParentPatch(gvk schema.GroupVersionKind, key ParentKey, fields ParentFields) *unstructured.Unstructured {
	patch := &unstructured.Unstructured{}
	patch.SetGroupVersionKind(gvk)
	patch.SetNamespace(key.Namespace)
	patch.SetName(key.Name)
	if fields.ID {
		patch.SetLabels(map[string]string{IDLabel: key.ID()})
	}
	annotations := map[string]string{}
	if fields.Tooling != nil {
		annotations[ToolingAnnotation] = fields.Tooling.String()
	}
	if fields.GroupKinds != nil {
		annotations[GroupKindsAnnotation] = FormatGroupKinds(fields.GroupKinds)
	}
	if fields.AdditionalNamespaces != nil {
		annotations[AdditionalNamespacesAnnotation] = FormatNamespaces(fields.AdditionalNamespaces, key.Namespace)
	}
	if len(annotations) > 0 {
		patch.SetAnnotations(annotations)
	}
	return patch
}

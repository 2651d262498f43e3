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

// The keys kubectl uses. The KEP text spells the prefix applyset.k8s.io; it was
// renamed before kubectl implemented it, and kubectl is the reference client.
const (
	// IDLabel is the parent's label holding the set's ID.
	IDLabel = "applyset.kubernetes.io/id"
	// PartOfLabel is the member's label holding the ID of the set it belongs to.
	PartOfLabel = "applyset.kubernetes.io/part-of"
	// ParentTypeLabel marks a CRD whose objects may be parents; its value is ignored.
	ParentTypeLabel = "applyset.kubernetes.io/is-parent-type"

	// ToolingAnnotation names the tool that manages the set, as name/version.
	ToolingAnnotation = "applyset.kubernetes.io/tooling"
	// GroupKindsAnnotation lists the kinds of the members, as Kind.group.
	GroupKindsAnnotation = "applyset.kubernetes.io/contains-group-kinds"
	// GroupResourcesAnnotation is the deprecated hint listing resource.group;
	// read when GroupKindsAnnotation is absent, never written.
	GroupResourcesAnnotation = "applyset.kubernetes.io/contains-group-resources"
	// AdditionalNamespacesAnnotation lists the namespaces besides the parent's own
	// that members may be in.
	AdditionalNamespacesAnnotation = "applyset.kubernetes.io/additional-namespaces"
)

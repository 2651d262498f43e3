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

package v1alpha1

// Member is an object the set applied that still carries its part-of label:
// the only kind of object prune and deletion may delete or release.
type Member struct {
	ObjectReference `json:",inline"`

	// uid is the member's UID as the set applied it. Prune and deletion act
	// on an object only while its UID is listed here: a part-of label anyone
	// may write proves nothing, and status is written by the operator alone.
	// Empty for members recorded before UIDs were kept, and for an object
	// whose apply had no answer (it may have been made), until the next
	// reconcile records theirs; such an entry proves an object only while
	// the operator's own apply wrote its part-of label.
	// +kubebuilder:validation:MaxLength=36
	// +optional
	UID string `json:"uid,omitempty"` //nolint:kubeapilinter // "" for members recorded before UIDs were kept.

	// cascade is true for a CustomResourceDefinition or Namespace whose
	// declaration allowed its deletion to take what else lives in it
	// (the apply.applyset.dev/cascade: allow annotation of the declared object).
	// +optional
	Cascade *bool `json:"cascade,omitempty"`
}

// ForeignMembers are objects that carry the set's part-of label although the
// set did not apply them: labels copied by a controller onto what it
// creates, or written by hand. They are never deleted or released by the set,
// and do not make it un-Ready; declaring one in the set adopts it.
type ForeignMembers struct {
	// count is how many there are; unset when there are none.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Count int32 `json:"count,omitempty"`

	// items name the first of them, with who wrote the label.
	// +kubebuilder:validation:MaxItems=20
	// +listType=atomic
	// +optional
	Items []ForeignMember `json:"items,omitempty"` //nolint:kubeapilinter // ForeignMember's inline ObjectReference requires kind and name.
}

// ForeignMember is an object that carries the set's label without the set
// having applied it.
type ForeignMember struct {
	ObjectReference `json:",inline"`

	// labelledBy names the field managers that wrote the part-of label, with
	// how (Apply or Update), as the object's managedFields record them; empty
	// when they do not say. Any client may name any field manager.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	LabelledBy string `json:"labelledBy,omitempty"` //nolint:kubeapilinter // "" when managedFields do not say.
}

// SourceStatus is what one source of the set declared.
type SourceStatus struct {
	// kind is ConfigMap or Secret, or a flux source's kind; empty for an oci source.
	// +kubebuilder:validation:Enum=ConfigMap;Secret;GitRepository;OCIRepository;ExternalArtifact
	// +optional
	Kind string `json:"kind,omitempty"`

	// namespace is the source's namespace.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"` //nolint:kubeapilinter // Always written; optional for a status a create never sets.

	// name is the source's name, or its Flux object's; empty for an oci source.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"` //nolint:kubeapilinter // "" for an oci source, which has a url instead.

	// key is the one key the source names; empty when it reads every key.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Key string `json:"key,omitempty"` //nolint:kubeapilinter // "" reads every key, as in spec.

	// url is an oci source's repository.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	URL string `json:"url,omitempty"` //nolint:kubeapilinter // "" for a ConfigMap or Secret source.

	// path is the directory of an oci or flux source's artifact that was read.
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Path string `json:"path,omitempty"` //nolint:kubeapilinter // "" is the artifact's root, as in spec.

	// digest is the digest of the oci or flux source's artifact that was
	// applied: the one an oci source's tag pointed to when it was read, or
	// the one a Flux object's status.artifact named and the tarball had.
	// +kubebuilder:validation:MaxLength=135
	// +optional
	Digest string `json:"digest,omitempty"` //nolint:kubeapilinter // "" for a ConfigMap or Secret source.

	// revision is the revision of the flux source's artifact that was
	// applied, as its status.artifact names it, e.g. main@sha1:<commit>.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Revision string `json:"revision,omitempty"` //nolint:kubeapilinter // "" for a source that is not a flux source.

	// objects is how many objects the source declared.
	// +kubebuilder:validation:Minimum=0
	// +required
	Objects *int32 `json:"objects,omitempty"`
}

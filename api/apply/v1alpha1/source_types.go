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

// SourceKind is the kind of object a source reads YAML from.
// +kubebuilder:validation:Enum=ConfigMap;Secret
type SourceKind string

const (
	// SourceKindConfigMap reads from a ConfigMap's data.
	SourceKindConfigMap SourceKind = "ConfigMap"
	// SourceKindSecret reads from a Secret's data.
	SourceKindSecret SourceKind = "Secret"
)

// Source is where a set reads objects from: a ConfigMap or Secret in the
// ApplySet's namespace holding multi-document YAML, an OCI artifact, or the
// artifact of a Flux source object.
// +kubebuilder:validation:XValidation:rule="[has(self.kind), has(self.oci), has(self.flux)].filter(x, x).size() == 1",message="a source is either kind and name (with key), oci or flux (with path)",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="!has(self.kind) || has(self.name)",message="a ConfigMap or Secret source needs a name",reason=FieldValueRequired,fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="!has(self.oci) || (!has(self.name) && !has(self.key))",message="an oci source has no name or key: it reads the directory path of the artifact",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.flux) || (!has(self.name) && !has(self.key))",message="a flux source has no name or key: flux names the object, path the directory of its artifact",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.path) || has(self.oci) || has(self.flux)",message="path is a directory of an oci or flux source's artifact; a ConfigMap or Secret source names a key",reason=FieldValueForbidden,fieldPath=".path"
type Source struct {
	// kind is ConfigMap or Secret.
	// +optional
	Kind SourceKind `json:"kind,omitempty"`

	// name is the ConfigMap's or Secret's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	Name string `json:"name,omitempty"`

	// key is the one data key to read; every key is read, in key order, when omitted.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	Key string `json:"key,omitempty"`

	// oci is an artifact in an OCI registry, fetched on every reconcile as
	// the set's identity reads its Secrets, from the hosts the operator's
	// admin allows (--artifact-allowed-hosts).
	// +optional
	OCI *OCISource `json:"oci,omitzero"` //nolint:kubeapilinter // Absent makes the source a ConfigMap or Secret.

	// flux names a Flux source object (source.toolkit.fluxcd.io/v1) in the
	// set's namespace, whose status.artifact is fetched on every reconcile,
	// from the hosts the operator's admin allows, and checked against its
	// digest. The set's identity must be allowed to get the object.
	// +optional
	Flux *FluxSource `json:"flux,omitzero"` //nolint:kubeapilinter // Absent makes the source another kind.

	// path is the directory of the artifact (oci or flux) the objects are
	// read from: the build of its kustomization, or else its YAML and JSON
	// files in lexical order. The artifact's root when omitted.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+(/[-._a-zA-Z0-9]+)*$`
	// +kubebuilder:validation:XValidation:rule="!self.split('/').exists(e, e == '..')",message="path stays inside the artifact: no .. element",reason=FieldValueForbidden
	// +optional
	Path string `json:"path,omitempty"`
}

// OCISource names an artifact of an OCI registry, as Flux writes them: one
// gzip-compressed tarball layer.
// +kubebuilder:validation:XValidation:rule="has(self.tag) || has(self.digest)",message="an oci source names a tag, a digest, or both (the digest pins the artifact; the tag must then still point to it)",reason=FieldValueRequired
type OCISource struct {
	// url is the repository, oci://host[:port]/path, without tag or digest.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^oci://[-a-zA-Z0-9.:\[\]]+/[a-z0-9]+([._/-]+[a-z0-9]+)*$`
	// +required
	URL string `json:"url,omitempty"`

	// tag is resolved to a digest on every reconcile, so a new artifact
	// pushed to it is applied.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_][a-zA-Z0-9._-]*$`
	// +optional
	Tag string `json:"tag,omitempty"`

	// digest pins the artifact, e.g. sha256:<64 hex digits>.
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^sha256:[a-f0-9]{64}$`
	// +optional
	Digest *string `json:"digest,omitempty"`

	// secretRef names a kubernetes.io/dockerconfigjson Secret holding the
	// registry's credentials; the registry is read anonymously when omitted.
	// An ApplySet's Secret is in its namespace; a ClusterApplySet's in the
	// source's namespace.
	// +optional
	SecretRef *SecretReference `json:"secretRef,omitzero"` //nolint:kubeapilinter // Absent is anonymous access; a present reference needs its name.

	// caSecretRef names a Secret whose key ca.crt holds PEM certificates
	// trusted besides the system's roots, found as secretRef is.
	// +optional
	CASecretRef *SecretReference `json:"caSecretRef,omitzero"` //nolint:kubeapilinter // Absent is the system's roots; a present reference needs its name.

	// insecure reaches the registry over plain HTTP, which the admin must
	// allow for the host (an http:// entry of --artifact-allowed-hosts).
	// +optional
	Insecure *bool `json:"insecure,omitempty"`
}

// FluxSourceKind is the kind of a Flux source object, of the API
// source.toolkit.fluxcd.io/v1.
// +kubebuilder:validation:Enum=GitRepository;OCIRepository;ExternalArtifact
type FluxSourceKind string

const (
	// FluxSourceGitRepository is a GitRepository: Flux fetches the Git repository.
	FluxSourceGitRepository FluxSourceKind = "GitRepository"
	// FluxSourceOCIRepository is an OCIRepository: Flux pulls the OCI artifact.
	FluxSourceOCIRepository FluxSourceKind = "OCIRepository"
	// FluxSourceExternalArtifact is an ExternalArtifact, whose status another
	// controller writes.
	FluxSourceExternalArtifact FluxSourceKind = "ExternalArtifact"
)

// FluxSource names a Flux source object whose artifact a set reads, as
// Flux's kustomize-controller reads it: the tarball at status.artifact.url,
// checked against status.artifact.digest.
type FluxSource struct {
	// kind is GitRepository, OCIRepository or ExternalArtifact.
	// +required
	Kind FluxSourceKind `json:"kind,omitempty"`

	// name is the object's name. An ApplySet's object is in its namespace;
	// a ClusterApplySet's in the source's namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +required
	Name string `json:"name,omitempty"`
}

// SecretReference names a Secret of the namespace its source reads from.
type SecretReference struct {
	// name is the Secret's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +required
	Name string `json:"name,omitempty"`
}

// ClusterSource is a Source of a ClusterApplySet: a ConfigMap, Secret or
// Flux source object in the given namespace, or an OCI artifact whose
// Secrets are there.
// +kubebuilder:validation:XValidation:rule="!has(self.kind) || has(self.namespace)",message="a ConfigMap or Secret source names its namespace",reason=FieldValueRequired,fieldPath=".namespace"
// +kubebuilder:validation:XValidation:rule="!has(self.flux) || has(self.namespace)",message="a flux source names the namespace of its object",reason=FieldValueRequired,fieldPath=".namespace"
// +kubebuilder:validation:XValidation:rule="!has(self.oci) || has(self.namespace) || (!has(self.oci.secretRef) && !has(self.oci.caSecretRef))",message="an oci source's secretRef and caSecretRef are read from namespace: set it",reason=FieldValueRequired,fieldPath=".namespace"
type ClusterSource struct {
	Source `json:",inline"`

	// namespace is the ConfigMap's, Secret's or Flux source object's
	// namespace, or that of an oci source's Secrets.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

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

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CommonSpec holds the fields ApplySet and ClusterApplySet share.
type CommonSpec struct {
	// resources are the objects of the set, written inline. Each is a complete
	// Kubernetes object with apiVersion, kind and metadata.name; larger sets
	// belong in sources.
	// +kubebuilder:validation:MaxItems=1024
	// +listType=atomic
	// +optional
	Resources []Resource `json:"resources,omitempty"`

	// prune deletes members that are no longer declared, after every declared
	// object was applied. Only objects that verifiably belong to this set are deleted.
	// +default=true
	// +optional
	Prune *bool `json:"prune,omitempty"`

	// allowEmpty lets the set declare no objects at all while it has members,
	// and so prune every one of them. Without it a set whose inputs yield
	// nothing (an emptied ConfigMap, a source that lost its files) stops
	// with reason EmptySource and changes nothing.
	// +default=false
	// +optional
	AllowEmpty *bool `json:"allowEmpty,omitempty"`

	// dryRun computes the plan with server-side dry-run and changes nothing: the
	// plan in status shows what a real run would do.
	// +default=false
	// +optional
	DryRun *bool `json:"dryRun,omitempty"`

	// approval says whether changes wait for a person. Auto applies them as
	// they come. Manual computes the plan as dryRun does, shows it in
	// status.plan with its digest, and applies it only once approvedPlan
	// names that digest; a plan that changed meanwhile applies nothing and
	// waits again. Prune applies creates and updates at once and holds
	// deletions the same way. Setting or changing approval or approvedPlan
	// needs the verb approve on the set (config/policy).
	// +default="Auto"
	// +optional
	Approval Approval `json:"approval,omitempty"`

	// approvedPlan is the digest (status.plan.digest) of the plan a person
	// approved; empty approves nothing. Each approval applies once.
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^(sha256:[a-f0-9]{64})?$`
	// +optional
	ApprovedPlan *string `json:"approvedPlan,omitempty"`

	// force takes ownership of fields that other field managers own (server-side
	// apply with force). Without it such conflicts are reported in status.
	// +default=false
	// +optional
	Force *bool `json:"force,omitempty"`

	// additionalNamespaces are the namespaces, besides the parent's own, that
	// members may live in (the ApplySet additional-namespaces annotation).
	// At most 16: admission checks the author's right in each, and a request
	// may spend no more than that on authorizer checks.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +listType=set
	// +optional
	AdditionalNamespaces []string `json:"additionalNamespaces,omitempty"`

	// deletionPolicy says what happens to the members when the set is deleted:
	// Delete prunes them all; Orphan removes their part-of label and leaves them.
	// +default="Delete"
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// serviceAccountName is the ServiceAccount the set acts as: every read of its
	// sources and every write and delete of its members is made as this account,
	// so a set can do no more than the account may. An ApplySet's account lives in
	// the ApplySet's namespace; when none is named, the operator's default
	// account of that namespace is used (--default-service-account). A
	// ClusterApplySet names the account's namespace in serviceAccountNamespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// interval is how often the set is applied again to correct drift, e.g. 10m or 1h30m.
	// +default="10m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="interval must be a positive duration such as 30s, 10m or 1h",reason=FieldValueInvalid
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"` //nolint:kubeapilinter // A duration string such as 10m, as GitOps tools write intervals.

	// suspend stops reconciliation while true: nothing is applied or pruned.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// wait makes the set Ready only once every member works: kstatus (or a
	// health check below) judges it Current. With false, the set is Ready once
	// its objects are applied.
	// +default=true
	// +optional
	Wait *bool `json:"wait,omitempty"`

	// timeout is how long the members may take to become healthy after a
	// change before the set is Stalled, e.g. 5m.
	// +default="5m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="timeout must be a positive duration such as 30s, 5m or 1h",reason=FieldValueInvalid
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"` //nolint:kubeapilinter // A duration string such as 5m, as GitOps tools write timeouts.

	// dependsOn are sets that must be Ready, for their current spec, before
	// this one is applied. The set reads them as the identity it acts as.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	DependsOn []SetReference `json:"dependsOn,omitempty"`

	// healthChecks judge, with CEL, the members of kinds kstatus cannot judge.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(a, self.exists_one(b, b.apiVersion == a.apiVersion && b.kind == a.kind))",message="one health check per apiVersion and kind",reason=FieldValueInvalid
	// +listType=atomic
	// +optional
	HealthChecks []HealthCheck `json:"healthChecks,omitempty"`

	// ignoreFields leave fields of members to other writers once the member
	// exists, such as spec.replicas of a Deployment that a HorizontalPodAutoscaler
	// scales: the declared value is used when the member is created, and later
	// applies keep whatever value the field has. Fields not listed here that
	// others change with update requests (kubectl edit, scale) are put back and
	// reported in status.drift.
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +optional
	IgnoreFields []IgnoreFields `json:"ignoreFields,omitempty"`
}

// SetKind is the kind of a set another set may depend on.
// +kubebuilder:validation:Enum=ApplySet;ClusterApplySet
type SetKind string

const (
	// SetKindApplySet is a namespaced ApplySet.
	SetKindApplySet SetKind = "ApplySet"
	// SetKindClusterApplySet is a ClusterApplySet.
	SetKindClusterApplySet SetKind = "ClusterApplySet"
)

// SetReference names an ApplySet or a ClusterApplySet.
// +kubebuilder:validation:XValidation:rule="!has(self.kind) || self.kind != 'ClusterApplySet' || !has(self.namespace)",message="a ClusterApplySet has no namespace",reason=FieldValueForbidden,fieldPath=".namespace"
type SetReference struct {
	// kind is ApplySet or ClusterApplySet.
	// +default="ApplySet"
	// +optional
	Kind SetKind `json:"kind,omitempty"`

	// name is the set's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +required
	Name string `json:"name,omitempty"`

	// namespace is an ApplySet's namespace; the depending set's own when omitted.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// HealthCheck judges the members of one kind with CEL expressions over the
// object, whose top-level fields are variables (metadata, spec, status; the
// whole object is self): inProgress, failed and current are tried in that
// order, the first that is true decides, and a member none decides is in
// progress. Fields a young object lacks read well with optional access, e.g.
// status.?phase.orValue(”).
type HealthCheck struct {
	// apiVersion is the members' group/version, e.g. batch.example.com/v1.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +required
	APIVersion string `json:"apiVersion,omitempty"`

	// kind is the members' kind.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Kind string `json:"kind,omitempty"`

	// current is true when a member works, e.g. status.phase == 'Succeeded'.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +required
	Current string `json:"current,omitempty"`

	// failed is true when a member has failed and will not recover by itself.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Failed string `json:"failed,omitempty"`

	// inProgress is true while a member is still working towards current.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	InProgress string `json:"inProgress,omitempty"`
}

// IgnoreFields names fields of some members that the set leaves to others.
type IgnoreFields struct {
	// group is the members' API group; empty for the core group.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Group string `json:"group,omitempty"` //nolint:kubeapilinter // "" is the core group, written by omission.

	// kind is the members' kind, e.g. Deployment.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Kind string `json:"kind,omitempty"`

	// name limits the rule to the member of this name; every member of the kind when omitted.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`

	// namespace limits the rule to members in this namespace; every namespace when omitted.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// paths are the fields, written .spec.replicas; a path covers its whole
	// subtree. Fields inside lists cannot be named.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:items:Pattern=`^(\.[A-Za-z_$][-A-Za-z0-9_.$/]*)+$`
	// +kubebuilder:validation:items:XValidation:rule="!self.matches('^\\\\.(metadata|apiVersion|kind)(\\\\.|$)')",message="a path under .metadata, .apiVersion or .kind cannot be left to others",reason=FieldValueForbidden
	// +listType=set
	// +required
	Paths []string `json:"paths,omitempty"`
}

// DeletionPolicy says what happens to the members of a deleted set.
// +kubebuilder:validation:Enum=Delete;Orphan
type DeletionPolicy string

const (
	// DeletionPolicyDelete prunes every member when the set is deleted.
	DeletionPolicyDelete DeletionPolicy = "Delete"
	// DeletionPolicyOrphan disbands the set: members lose their part-of label and stay.
	DeletionPolicyOrphan DeletionPolicy = "Orphan"
)

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

// ObjectReference identifies a member of a set.
type ObjectReference struct {
	// group is the API group; empty for the core group.
	// +optional
	Group string `json:"group,omitempty"` //nolint:kubeapilinter // "" is the core group, written by omission.

	// kind is the object's kind.
	// +kubebuilder:validation:MinLength=1
	// +required
	Kind string `json:"kind,omitempty"`

	// namespace is empty for cluster-scoped objects.
	// +optional
	Namespace string `json:"namespace,omitempty"` //nolint:kubeapilinter // "" is cluster scope, written by omission.

	// name is the object's name.
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name,omitempty"`
}

// ObjectUpdate is a member that the apply changes, with the fields it changes.
type ObjectUpdate struct {
	ObjectReference `json:",inline"`
	// fields are the paths of the changed fields, such as .spec.replicas.
	// +kubebuilder:validation:MinItems=1
	// +listType=atomic
	// +required
	Fields []string `json:"fields,omitempty"`
}

// SkippedPrune is an object that would have been pruned but was kept, and why.
type SkippedPrune struct {
	ObjectReference `json:",inline"`
	// reason says why the object was kept, for a person to act on.
	// +kubebuilder:validation:MinLength=1
	// +required
	Reason string `json:"reason,omitempty"`
}

// Plan is what the last reconcile did, or would do when dryRun is set.
type Plan struct {
	// dryRun is true when the plan was only previewed with server-side dry-run.
	// +optional
	DryRun *bool `json:"dryRun,omitempty"`
	// digest names the plan for approval (spec.approval Manual or Prune): a
	// digest of the requests it would send, the UIDs it would delete, the
	// spec fields that change how it runs and status.approval.sequence.
	// +kubebuilder:validation:MinLength=71
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^sha256:[a-f0-9]{64}$`
	// +optional
	Digest string `json:"digest,omitempty"`
	// create are declared objects that did not exist.
	// +listType=atomic
	// +optional
	Create []ObjectReference `json:"create,omitempty"`
	// update are declared objects whose fields the apply changes.
	// +listType=atomic
	// +optional
	Update []ObjectUpdate `json:"update,omitempty"`
	// recreate are declared objects deleted and created again, because the set
	// changed fields that may not change and spec.force is set; fields names them.
	// +listType=atomic
	// +optional
	Recreate []ObjectUpdate `json:"recreate,omitempty"`

	// unchanged are declared objects that already matched.
	// +listType=atomic
	// +optional
	Unchanged []ObjectReference `json:"unchanged,omitempty"`
	// prune are members no longer declared, deleted by the apply.
	// +listType=atomic
	// +optional
	Prune []ObjectReference `json:"prune,omitempty"`
	// skipped are members no longer declared that were kept, with the reason.
	// +listType=atomic
	// +optional
	Skipped []SkippedPrune `json:"skipped,omitempty"`
}

// Conflict is a set of fields that another field manager holds: taken from it
// or not, as the list it is in says.
type Conflict struct {
	ObjectReference `json:",inline"`
	// manager is the field manager that owns the fields.
	// +kubebuilder:validation:MinLength=1
	// +required
	Manager string `json:"manager,omitempty"`
	// fields are the paths of the conflicting fields.
	// +listType=atomic
	// +optional
	Fields []string `json:"fields,omitempty"`
}

// ApplySetStatus is the observed state of an ApplySet or ClusterApplySet.
type ApplySetStatus struct {
	// conditions are the kstatus conditions of the set: Ready, Reconciling and Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the spec that was last reconciled.
	// +kubebuilder:validation:Minimum=1
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// applySetID is the KEP-3659 ID of the set, the value of its members'
	// applyset.kubernetes.io/part-of label.
	// +kubebuilder:validation:MinLength=1
	// +optional
	ApplySetID string `json:"applySetID,omitempty"`

	// groupKinds are the kinds of the members, as Kind.group (Kind for the core group).
	// +listType=atomic
	// +optional
	GroupKinds []string `json:"groupKinds,omitempty"`

	// memberCount is the number of members (status.members).
	// +kubebuilder:validation:Minimum=0
	// +optional
	MemberCount *int32 `json:"memberCount,omitempty"`

	// members is the inventory of the set: every object it applied that
	// still carries its label, including members that left the set and wait
	// to be pruned or were kept. Only these are ever deleted or released.
	// +listType=atomic
	// +optional
	Members []Member `json:"members,omitempty"` //nolint:kubeapilinter // Member's inline ObjectReference requires kind and name.

	// sources count the objects each source declared at the last reconcile
	// that read them; a source that declared objects and then declares none
	// stops the set (reason EmptySource) unless spec.allowEmpty.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	Sources []SourceStatus `json:"sources,omitempty"`

	// foreignMembers are objects that carry the set's label although the set
	// did not apply them; the set leaves them alone.
	// +optional
	ForeignMembers *ForeignMembers `json:"foreignMembers,omitempty"`

	// plan is what the last reconcile did, or would do when spec.dryRun is
	// set or the plan awaits approval.
	// +optional
	Plan *Plan `json:"plan,omitempty"`

	// approval is where the set stands with approvals (spec.approval).
	// +optional
	Approval *ApprovalStatus `json:"approval,omitempty"`

	// conflicts are fields owned by other field managers that the apply did not
	// take, because spec.force is false.
	// +listType=atomic
	// +optional
	Conflicts []Conflict `json:"conflicts,omitempty"`

	// health counts the members by health and names those that are not
	// healthy; set while spec.wait is true.
	// +optional
	Health *HealthStatus `json:"health,omitempty"`

	// drift are declared fields that other field managers had changed with
	// update requests (kubectl edit, scale, controllers) and that the last
	// apply put back. List a field in spec.ignoreFields to leave it to them.
	// +listType=atomic
	// +optional
	Drift []Conflict `json:"drift,omitempty"`

	// warnings name the inputs the last reconcile took with a part left out,
	// as kubectl leaves it out: the namespace of a cluster-scoped object, the
	// exact copy of an object declared twice.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=512
	// +listType=atomic
	// +optional
	Warnings []string `json:"warnings,omitempty"`
}

// HealthStatus is the health of a set's members, as kstatus judges it.
type HealthStatus struct {
	// summary reads like 12/14 ready, for people and kubectl get.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Summary string `json:"summary,omitempty"`

	// current is the number of members that work.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Current *int32 `json:"current,omitempty"`

	// inProgress is the number of members still on their way.
	// +kubebuilder:validation:Minimum=0
	// +optional
	InProgress *int32 `json:"inProgress,omitempty"`

	// failed is the number of members that failed.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Failed *int32 `json:"failed,omitempty"`

	// other is the number of members being deleted or of unknown health.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Other *int32 `json:"other,omitempty"`

	// waitingSince is when the set began to wait for the members that are
	// not healthy; spec.timeout counts from it.
	// +optional
	WaitingSince *metav1.Time `json:"waitingSince,omitempty"`

	// unhealthy are members that are not healthy, with why (at most 20).
	// +kubebuilder:validation:MaxItems=20
	// +listType=atomic
	// +optional
	Unhealthy []UnhealthyMember `json:"unhealthy,omitempty"`
}

// UnhealthyMember is a member that does not work yet, or failed.
type UnhealthyMember struct {
	ObjectReference `json:",inline"`

	// status is the member's health: InProgress, Failed, Terminating or Unknown.
	// +kubebuilder:validation:MinLength=1
	// +required
	Status string `json:"status,omitempty"`

	// message says why, as kstatus or the health check puts it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Message string `json:"message,omitempty"`
}

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
	// Whoever creates a set that names an account, or changes anything but
	// approvedPlan in its spec, needs the verb impersonate on that account
	// (config/policy), unless an ApplySet names the default one.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// interval is how often the set is applied again to correct drift, e.g. 10m or 1h30m.
	// One shorter than the operator's --min-interval (30s by default) runs at that floor.
	// +default="10m0s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="interval must be at least 1s, such as 30s, 10m or 1h",reason=FieldValueInvalid
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
	// +default="5m0s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="timeout must be a positive duration such as 30s, 5m or 1h",reason=FieldValueInvalid
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"` //nolint:kubeapilinter // A duration string such as 5m, as GitOps tools write timeouts.

	// dependsOn are what must be ready before this set is applied: other
	// sets, Ready for their current spec, or, with apiVersion, any object,
	// ready by readyExpr or kstatus. The set reads them as the identity it
	// acts as.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	DependsOn []Dependency `json:"dependsOn,omitempty"`

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

	// windows decide when the set may apply and prune: never while a Deny
	// window is open and, when any Allow window is declared, only while one
	// is. A held set is Ready False with reason OutsideWindow, naming the
	// window and the next opening. Deleting the set is never held.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	Windows []Window `json:"windows,omitempty"`

	// driftPolicy says what the set does with drift, declared fields of its
	// members that others changed since it applied them. Correct puts them
	// back at each reconcile. Report leaves them: a member whose declaration
	// did not change since the set last applied it is not written, and its
	// drift is listed in status.drift with the managers that changed it. New
	// members, and members whose declaration changed, are applied as with
	// Correct. Prune is the same under both.
	// +default="Correct"
	// +optional
	DriftPolicy DriftPolicy `json:"driftPolicy,omitempty"`
}

// DriftPolicy says whether a set corrects drift or only reports it.
// +kubebuilder:validation:Enum=Correct;Report
type DriftPolicy string

const (
	// DriftPolicyCorrect puts back what others changed, at each reconcile.
	DriftPolicyCorrect DriftPolicy = "Correct"
	// DriftPolicyReport leaves what others changed, and reports it.
	DriftPolicyReport DriftPolicy = "Report"
)

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

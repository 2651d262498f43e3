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
	// digest names the plan for approval (spec.approval Manual or Prune),
	// and the plan a set its delivery windows hold would apply, for the
	// window-override annotation: a digest of the requests it would send,
	// the UIDs it would delete, the spec fields that change how it runs and
	// status.approval.sequence.
	// +kubebuilder:validation:MinLength=71
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^sha256:[a-f0-9]{64}$`
	// +optional
	Digest string `json:"digest,omitempty"`
	// counts count the plan's objects by what it does to them, every one of
	// them, whether the lists below name it or not.
	// +optional
	Counts *PlanCounts `json:"counts,omitempty"`
	// create are declared objects that did not exist. Like update, recreate,
	// prune and skipped, it names the first objects that fit in the plan's
	// share of status (32 KiB), so that a set of any size can record it.
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

	// prune are members no longer declared, deleted by the apply.
	// +listType=atomic
	// +optional
	Prune []ObjectReference `json:"prune,omitempty"`
	// skipped are members no longer declared that were kept, with the reason.
	// +listType=atomic
	// +optional
	Skipped []SkippedPrune `json:"skipped,omitempty"`
}

// PlanCounts count the objects of a plan by what it does to them.
type PlanCounts struct {
	// create counts the declared objects that did not exist.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Create *int32 `json:"create,omitempty"`
	// update counts the declared objects whose fields the apply changes.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Update *int32 `json:"update,omitempty"`
	// recreate counts the declared objects deleted and created again.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Recreate *int32 `json:"recreate,omitempty"`
	// unchanged counts the declared objects that already matched; the plan
	// names none of them.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Unchanged *int32 `json:"unchanged,omitempty"`
	// prune counts the members no longer declared that the apply deletes.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Prune *int32 `json:"prune,omitempty"`
	// skipped counts the members no longer declared that were kept.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Skipped *int32 `json:"skipped,omitempty"`
	// omitted counts the objects the plan's lists leave out to fit its share of status.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Omitted *int32 `json:"omitted,omitempty"`
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

// Drift is a set of declared fields of a member that other field managers
// changed, and what the set did about it.
type Drift struct {
	Conflict `json:",inline"`
	// action is Corrected when the apply put the declared values back, and
	// Reported when it left them in place (spec.driftPolicy Report). manager
	// is unknown for fields an update removed, which leaves no owner.
	// +required
	Action DriftAction `json:"action,omitempty"`
}

// DriftAction is what a set did about drift.
// +kubebuilder:validation:Enum=Corrected;Reported
type DriftAction string

const (
	// DriftCorrected drift was put back by the apply.
	DriftCorrected DriftAction = "Corrected"
	// DriftReported drift was left in place and reported (spec.driftPolicy Report).
	DriftReported DriftAction = "Reported"
)

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

	// memberCount is the number of members (status.members, or the chunks
	// status.inventory names).
	// +kubebuilder:validation:Minimum=0
	// +optional
	MemberCount *int32 `json:"memberCount,omitempty"`

	// members is the inventory of the set: every object it applied that
	// still carries its label, including members that left the set and wait
	// to be pruned or were kept. Only these are ever deleted or released.
	// +listType=atomic
	// +optional
	Members []Member `json:"members,omitempty"` //nolint:kubeapilinter // Member's inline ObjectReference requires kind and name.

	// inventory names the ApplySetInventory objects that hold the members
	// when they are too many for status.members (more than 1,000), which is
	// then empty.
	// +optional
	Inventory *InventoryStatus `json:"inventory,omitempty"`

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

	// window is where the set stands with its delivery windows (spec.windows).
	// +optional
	Window *WindowStatus `json:"window,omitempty"`

	// history is what the set's last runs did, newest first: one entry for
	// the runs that declared the same objects and ended the same way, at
	// most 10. A run that changes nothing in status adds nothing.
	// +kubebuilder:validation:MaxItems=10
	// +listType=atomic
	// +optional
	History []HistoryEntry `json:"history,omitempty"`

	// conflicts are fields owned by other field managers that the apply did not
	// take, because spec.force is false: the first objects that fit in 32 KiB.
	// +listType=atomic
	// +optional
	Conflicts []Conflict `json:"conflicts,omitempty"`

	// health counts the members by health and names those that are not
	// healthy; set while spec.wait is true.
	// +optional
	Health *HealthStatus `json:"health,omitempty"`

	// drift are declared fields of members that other field managers changed
	// since the set applied them, as the last apply found them, for the first
	// objects that fit in 32 KiB. action says what the set did: Corrected,
	// put back (fields changed with update requests: kubectl edit, scale,
	// controllers); Reported, left in place (spec.driftPolicy Report). List a
	// field in spec.ignoreFields to leave it to others without either.
	// +listType=atomic
	// +optional
	Drift []Drift `json:"drift,omitempty"`

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

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

// Approval says whether a set's changes wait for a person.
// +kubebuilder:validation:Enum=Auto;Manual;Prune
type Approval string

const (
	// ApprovalAuto applies every change as it comes.
	ApprovalAuto Approval = "Auto"
	// ApprovalManual computes the plan, as dryRun does, and applies it only
	// once spec.approvedPlan names its digest.
	ApprovalManual Approval = "Manual"
	// ApprovalPrune applies creates and updates as they come and holds
	// deletions until spec.approvedPlan names the digest of them.
	ApprovalPrune Approval = "Prune"
)

// ManualApprovalLabel on a Namespace makes Manual the rule for every set in
// it, and for every ClusterApplySet acting as a ServiceAccount of it: a set
// that says Auto (or Prune) is held to Manual.
const ManualApprovalLabel = "apply.applyset.dev/approval"

// ApprovedByAnnotation names the user who set spec.approvedPlan to its
// value. Admission writes it, from the request's user, on every request
// that changes approvedPlan, and puts back the stored value on any other
// that changes it; the history entry of the run that applies the approved
// plan names that user.
const ApprovedByAnnotation = "apply.applyset.dev/approved-by"

// ApprovalStatus is where a set stands with approvals.
type ApprovalStatus struct {
	// awaitingSince is when the plan in status.plan began to wait for
	// approval; unset when nothing waits.
	// +optional
	AwaitingSince *metav1.Time `json:"awaitingSince,omitempty"`

	// sequence counts the approved plans the set applied. Every plan's
	// digest includes it, so an approval applies once: the same changes
	// coming back later make a new digest that waits for a new approval.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Sequence *int64 `json:"sequence,omitempty"`

	// lastApplied is the digest of the last approved plan the set applied.
	// +kubebuilder:validation:MinLength=71
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^sha256:[a-f0-9]{64}$`
	// +optional
	LastApplied string `json:"lastApplied,omitempty"`

	// lastAppliedTime is when it was applied.
	// +optional
	LastAppliedTime *metav1.Time `json:"lastAppliedTime,omitempty"`

	// deletionApproved is true once the deletion of the set's members was
	// approved; it covers every pass of that deletion.
	// +optional
	DeletionApproved *bool `json:"deletionApproved,omitempty"`
}

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

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// MaxHistory is the most entries status.history keeps.
const MaxHistory = 10

// HistoryEntry is what the runs of a set did that declared the same
// objects and ended the same way: the runs that wrote the set's status,
// newest last. The names are those of Flux's history where they mean the
// same (digest, firstReconciled, lastReconciled, lastReconciledDuration,
// lastReconciledStatus, totalReconciliations).
type HistoryEntry struct {
	// digest names what the set declared: a digest of every object it
	// declared, as it was applied; unset when the run read no declaration
	// (it stopped before, or only judged the members' health again).
	// +kubebuilder:validation:MinLength=71
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^sha256:[a-f0-9]{64}$`
	// +optional
	Digest string `json:"digest,omitempty"`

	// firstReconciled is when the first run of the entry started.
	// +required
	FirstReconciled *metav1.Time `json:"firstReconciled,omitempty"`

	// lastReconciled is when the last run of the entry started.
	// +required
	LastReconciled *metav1.Time `json:"lastReconciled,omitempty"`

	// lastReconciledDuration is how long the last run took, from its start
	// to the write of its status.
	// +required
	LastReconciledDuration *metav1.Duration `json:"lastReconciledDuration,omitempty"` //nolint:kubeapilinter // Flux's field, a duration string such as 1.2s.

	// lastReconciledStatus is the reason of the Ready condition the runs
	// ended with, e.g. Succeeded, ApplyFailed, AwaitingApproval.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +required
	LastReconciledStatus string `json:"lastReconciledStatus,omitempty"`

	// totalReconciliations counts the runs of the entry.
	// +kubebuilder:validation:Minimum=1
	// +required
	TotalReconciliations int64 `json:"totalReconciliations,omitempty"`

	// observedGeneration is the set's generation at the last run.
	// +kubebuilder:validation:Minimum=1
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// plan is the digest of the plan the last run applied, or would apply,
	// where it has one (status.plan.digest).
	// +kubebuilder:validation:MinLength=71
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:Pattern=`^sha256:[a-f0-9]{64}$`
	// +optional
	Plan string `json:"plan,omitempty"`

	// counts count what the last run did to the members.
	// +optional
	Counts *HistoryCounts `json:"counts,omitempty"`

	// traceID is the OpenTelemetry trace of the last run, where the
	// operator exports traces.
	// +kubebuilder:validation:MinLength=32
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[a-f0-9]{32}$`
	// +optional
	TraceID string `json:"traceID,omitempty"`

	// approvedBy is the user who approved the plan the entry's runs
	// applied, where the set waited for approval: the approved-by
	// annotation, which admission writes from the user of the request that
	// set spec.approvedPlan.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +optional
	ApprovedBy string `json:"approvedBy,omitempty"`
}

// HistoryCounts count what one run did to a set's members.
type HistoryCounts struct {
	// applied counts the members created, updated or recreated.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Applied *int32 `json:"applied,omitempty"`
	// pruned counts the members deleted, or released, because they left the set.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Pruned *int32 `json:"pruned,omitempty"`
	// unchanged counts the members already as declared.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Unchanged *int32 `json:"unchanged,omitempty"`
	// failed counts the members whose apply or delete failed.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Failed *int32 `json:"failed,omitempty"`
}

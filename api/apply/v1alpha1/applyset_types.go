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

// ApplySetSpec declares a set of objects to apply and prune as one unit.
// It is shared by ApplySet and ClusterApplySet.
type ApplySetSpec struct {
	// suspend stops reconciliation of the set while true; nothing is applied or pruned.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// ApplySetStatus is the observed state of an ApplySet or ClusterApplySet.
type ApplySetStatus struct {
	// observedGeneration is the generation of the spec that was last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are the kstatus conditions of the set: Ready, Reconciling and Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ApplySet is a namespaced set of objects applied with server-side apply and pruned
// by the operator. Every ApplySet is also a KEP-3659 ApplySet parent.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=aset,categories=applysets
// +kubebuilder:metadata:labels="applyset.kubernetes.io/is-parent-type=true"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ApplySet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ApplySetSpec `json:"spec,omitempty"`
	// +optional
	Status ApplySetStatus `json:"status,omitempty"`
}

// ApplySetList is a list of ApplySets.
// +kubebuilder:object:root=true
type ApplySetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ApplySet `json:"items"`
}

// ClusterApplySet is a cluster-scoped set of objects applied and pruned by the
// operator: the parent for sets whose members span namespaces.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=caset,categories=applysets
// +kubebuilder:metadata:labels="applyset.kubernetes.io/is-parent-type=true"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ClusterApplySet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ApplySetSpec `json:"spec,omitempty"`
	// +optional
	Status ApplySetStatus `json:"status,omitempty"`
}

// ClusterApplySetList is a list of ClusterApplySets.
// +kubebuilder:object:root=true
type ClusterApplySetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterApplySet `json:"items"`
}

func init() {
	knownTypes = append(knownTypes, &ApplySet{}, &ApplySetList{}, &ClusterApplySet{}, &ClusterApplySetList{})
}

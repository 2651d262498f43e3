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

// CustomFeatureGatesSpec declares feature gates over fields of one CustomResourceDefinition.
type CustomFeatureGatesSpec struct {
	// component names the product the gated CRD belongs to, for people reading the gates.
	// +optional
	Component string `json:"component,omitempty"`
}

// CustomFeatureGatesStatus is the observed state of a CustomFeatureGates object.
type CustomFeatureGatesStatus struct {
	// observedGeneration is the generation of the spec that was last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are the kstatus conditions of the object: Ready, Reconciling and Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// CustomFeatureGates declares feature gates over fields of another CRD. Its name is
// the gated CRD's name (<plural>.<group>): one object per gated CRD.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=cfg
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CustomFeatureGates struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec CustomFeatureGatesSpec `json:"spec,omitempty"`
	// +optional
	Status CustomFeatureGatesStatus `json:"status,omitempty"`
}

// CustomFeatureGatesList is a list of CustomFeatureGates.
// +kubebuilder:object:root=true
type CustomFeatureGatesList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CustomFeatureGates `json:"items"`
}

func init() {
	knownTypes = append(knownTypes, &CustomFeatureGates{}, &CustomFeatureGatesList{})
}

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

// InventoryOfLabel on an ApplySetInventory holds the UID of the set whose
// members it records.
const InventoryOfLabel = "apply.applyset.dev/inventory-of"

// ApplySetInventorySpec is one chunk of a set's inventory.
type ApplySetInventorySpec struct {
	// set is the set whose members the chunk records.
	// +required
	Set InventorySet `json:"set,omitzero"`

	// members are the members of the set this chunk holds: those whose
	// reference hashes to it.
	// +kubebuilder:validation:MaxItems=4096
	// +listType=atomic
	// +optional
	Members []Member `json:"members,omitempty"` //nolint:kubeapilinter // Member's inline ObjectReference requires kind and name.
}

// InventorySet names the set an inventory chunk belongs to.
type InventorySet struct {
	// kind is ApplySet or ClusterApplySet.
	// +kubebuilder:validation:Enum=ApplySet;ClusterApplySet
	// +required
	Kind string `json:"kind,omitempty"`
	// name is the set's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name,omitempty"`
	// uid is the set's UID: a chunk of another set of the same name proves nothing.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=36
	// +required
	UID string `json:"uid,omitempty"`
}

// ApplySetInventory holds part of the inventory of a set whose members do
// not fit in its status (more than 1,000): the proof of membership that
// prune and deletion act on. Only the operator writes it: the admission
// policy applyset-inventory in config/policy refuses every create and update
// by anyone who lacks the cluster-wide verb record on applysetinventories,
// which namespace roles cannot grant. The set owns its chunks; deleting one
// loses proof, never an object: the members it recorded are left alone.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:printcolumn:name="Set",type=string,JSONPath=`.spec.set.name`
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.set.kind`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ApplySetInventory struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`

	// spec is the chunk.
	// +required
	Spec ApplySetInventorySpec `json:"spec,omitzero"`
}

// ApplySetInventoryList is a list of ApplySetInventories.
// +kubebuilder:object:root=true
type ApplySetInventoryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ApplySetInventory `json:"items"`
}

// InventoryStatus says where a set's inventory lives when status.members
// cannot hold it; empty while status.members does.
type InventoryStatus struct {
	// namespace holds the chunks: the ApplySet's own, or the operator's for a
	// ClusterApplySet.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// chunks are the ApplySetInventory objects that hold the members.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1024
	// +listType=atomic
	// +optional
	Chunks []InventoryChunk `json:"chunks,omitempty"`
}

// InventoryChunk is one ApplySetInventory of a set.
type InventoryChunk struct {
	// name is the ApplySetInventory's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name,omitempty"`
	// count is the number of members it holds.
	// +kubebuilder:validation:Minimum=0
	// +required
	Count *int32 `json:"count,omitempty"`
	// digest is the SHA-256 of its members, hex, the first 16 characters:
	// a chunk is written again only when it changes.
	// +kubebuilder:validation:MinLength=16
	// +kubebuilder:validation:MaxLength=16
	// +required
	Digest string `json:"digest,omitempty"`
}

func init() {
	knownTypes = append(knownTypes, &ApplySetInventory{}, &ApplySetInventoryList{})
}

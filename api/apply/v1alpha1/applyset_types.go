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

// ApplySetSpec declares the objects of a namespaced ApplySet and how to apply them.
type ApplySetSpec struct {
	// sources are ConfigMaps and Secrets in the ApplySet's own namespace whose keys
	// hold multi-document YAML of more objects of the set, OCI artifacts, and
	// Flux source objects of its namespace whose artifacts hold them.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	Sources []Source `json:"sources,omitempty"` //nolint:kubeapilinter // A source is one of three shapes; CEL requires the fields of each.

	CommonSpec `json:",inline"`
}

// ApplySet is a namespaced set of objects applied with server-side apply and pruned
// by the operator. Every ApplySet is also a KEP-3659 ApplySet parent, so kubectl
// can use it with --applyset=applysets.apply.applyset.dev/NAME.
//
// The inline resources of an ApplySet stay in its namespace or the namespaces listed
// in spec.additionalNamespaces; the ValidatingAdmissionPolicy in
// config/policy enforces that, because CRD rules cannot read metadata.namespace.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=aset,categories=applysets
// +kubebuilder:metadata:labels="applyset.kubernetes.io/is-parent-type=true"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,description="Why the set is Ready or not: the last reconcile of its spec"
// +kubebuilder:printcolumn:name="Health",type=string,JSONPath=`.status.health.summary`,description="The members' health as kstatus judges it, like 52/59 ready (while spec.wait is true); kubectl applyset verify reports the ApplySet contract's findings"
// +kubebuilder:printcolumn:name="Members",type=integer,JSONPath=`.status.memberCount`
// +kubebuilder:printcolumn:name="Prune",type=boolean,JSONPath=`.spec.prune`
// +kubebuilder:printcolumn:name="DryRun",type=boolean,JSONPath=`.spec.dryRun`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ApplySet struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`

	// spec declares the set.
	// Defaulted to {} so that the defaults of its fields apply to an object without one.
	// +default={}
	// +optional
	Spec ApplySetSpec `json:"spec,omitzero"`

	// status is the state the operator observed.
	// +optional
	Status ApplySetStatus `json:"status,omitzero"`
}

// ApplySetList is a list of ApplySets.
// +kubebuilder:object:root=true
type ApplySetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ApplySet `json:"items"`
}

func init() {
	knownTypes = append(knownTypes, &ApplySet{}, &ApplySetList{})
}

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

// ClusterApplySetSpec declares the objects of a ClusterApplySet and how to apply them.
// +kubebuilder:validation:XValidation:rule="has(self.serviceAccountName) == has(self.serviceAccountNamespace)",message="serviceAccountName and serviceAccountNamespace name one ServiceAccount: set both or neither",reason=FieldValueRequired,fieldPath=".serviceAccountNamespace"
type ClusterApplySetSpec struct {
	// sources are ConfigMaps and Secrets, each in the namespace it names, whose keys
	// hold multi-document YAML of more objects of the set, OCI artifacts, and
	// Flux source objects, each in the namespace it names, whose artifacts hold them.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	Sources []ClusterSource `json:"sources,omitempty"` //nolint:kubeapilinter // A source is one of three shapes; CEL requires the fields of each.

	// serviceAccountNamespace is the namespace of the ServiceAccount named by
	// serviceAccountName, which the set acts as. The account must exist.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	ServiceAccountNamespace string `json:"serviceAccountNamespace,omitempty"`

	CommonSpec `json:",inline"`
}

// ClusterApplySet is a cluster-scoped set of objects applied and pruned by the
// operator: the parent for sets whose members span namespaces, and for sets of
// cluster-scoped objects.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=caset,categories=applysets
// +kubebuilder:metadata:labels="applyset.kubernetes.io/is-parent-type=true"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,description="Why the set is Ready or not: the last reconcile of its spec"
// +kubebuilder:printcolumn:name="Health",type=string,JSONPath=`.status.health.summary`,description="The members' health as kstatus judges it, like 52/59 ready (while spec.wait is true); kubectl applyset verify reports the ApplySet contract's findings"
// +kubebuilder:printcolumn:name="Members",type=integer,JSONPath=`.status.memberCount`
// +kubebuilder:printcolumn:name="Prune",type=boolean,JSONPath=`.spec.prune`
// +kubebuilder:printcolumn:name="DryRun",type=boolean,JSONPath=`.spec.dryRun`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ClusterApplySet struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`

	// spec declares the set.
	// Defaulted to {} so that the defaults of its fields apply to an object without one.
	// +default={}
	// +optional
	Spec ClusterApplySetSpec `json:"spec,omitzero"`

	// status is the state the operator observed.
	// +optional
	Status ApplySetStatus `json:"status,omitzero"`
}

// ClusterApplySetList is a list of ClusterApplySets.
// +kubebuilder:object:root=true
type ClusterApplySetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterApplySet `json:"items"`
}

func init() {
	knownTypes = append(knownTypes, &ClusterApplySet{}, &ClusterApplySetList{})
}

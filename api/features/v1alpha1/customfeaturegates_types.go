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
//
// The rule that no path is in two gates costs the square of the number of paths
// (CEL charges distinct() as O(n^2)); 64 gates of 8 paths keep a full object
// within the API server's per-rule cost limit.
//
// The gates compile into one MutatingAdmissionPolicy, whose CEL grows with the
// number of paths and the square of their depth: 64 paths of at most 6 names
// and 128 characters keep the largest at about 1.1 MB, inside etcd's 1.5 MiB
// per object (pkg/featuregate TestLargestAllowedGatesFitTheAPIServer).
// +kubebuilder:validation:XValidation:rule="!has(self.featureGates) || self.featureGates.map(g, g.fieldPaths).flatten().distinct().size() == self.featureGates.map(g, g.fieldPaths).flatten().size()",message="a field path may belong to one feature gate only: remove it from all gates but one",reason=FieldValueInvalid,fieldPath=".featureGates"
// +kubebuilder:validation:XValidation:rule="!has(self.featureGates) || self.featureGates.map(g, g.fieldPaths.size()).sum() <= 64",message="at most 64 field paths in all gates, so that the admission policy they compile into fits the API server's limits",reason=FieldValueInvalid,fieldPath=".featureGates"
type CustomFeatureGatesSpec struct {
	// component names the product the gated CRD belongs to, e.g. istio: whom
	// the gates serve, and whose maintainers decide when a gate graduates, is
	// deprecated or flips. It is for people reading the gates; kubectl
	// feature-gates shows it in its COMPONENT column.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Component string `json:"component,omitempty"`

	// featureGates are the gates, each over one or more fields of the CRD.
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	// +optional
	FeatureGates []FeatureGate `json:"featureGates,omitempty"`
}

// PreRelease is the maturity of a feature gate.
// +kubebuilder:validation:Enum=Alpha;Beta;Stable;Deprecated
type PreRelease string

const (
	// Alpha gates are off unless enabled; they may not default to on.
	Alpha PreRelease = "Alpha"
	// Beta gates state their default.
	Beta PreRelease = "Beta"
	// Stable gates are always on.
	Stable PreRelease = "Stable"
	// Deprecated gates state their default and may warn people who use their fields.
	Deprecated PreRelease = "Deprecated"
)

// FeatureGate puts fields of the CRD behind a gate: while the gate is off, the
// API server's admission policies or the operator's webhook drop those fields
// from requests. No stored object is ever rewritten: see enabled.
// +kubebuilder:validation:XValidation:rule="self.preRelease != 'Alpha' || !has(self.default) || !self.default",message="an Alpha gate may not default to true; set default: false or leave it unset",reason=FieldValueForbidden,fieldPath=".default"
// +kubebuilder:validation:XValidation:rule="self.preRelease != 'Stable' || !has(self.default) || self.default",message="a Stable gate is always on and may not default to false",reason=FieldValueForbidden,fieldPath=".default"
// +kubebuilder:validation:XValidation:rule="!(self.preRelease in ['Beta', 'Deprecated']) || has(self.default)",message="a Beta or Deprecated gate must state default: true or false",reason=FieldValueRequired,fieldPath=".default"
// +kubebuilder:validation:XValidation:rule="!has(self.deprecationWarning) || self.preRelease == 'Deprecated'",message="deprecationWarning is only for Deprecated gates",reason=FieldValueForbidden,fieldPath=".deprecationWarning"
type FeatureGate struct {
	// name is the gate's CamelCase name, e.g. ReplicasField.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`
	// +required
	Name string `json:"name,omitempty"`

	// preRelease is the gate's maturity: Alpha, Beta, Stable or Deprecated.
	// +required
	PreRelease PreRelease `json:"preRelease,omitempty"`

	// default is the gate's state when enabled is unset. Alpha gates default to
	// false; Beta and Deprecated gates must state it; Stable gates are always on.
	// +optional
	Default *bool `json:"default,omitempty"`

	// enabled turns the gate on or off, overriding default. It has no effect on
	// Stable gates.
	//
	// Turning a gate off changes no stored object; it changes the writes that
	// follow. While the gate is off, a create drops the gate's fields, and an
	// update drops them unless the stored object has them: then the stored
	// value is kept, and the update can neither change nor remove it. Turning
	// the gate on again makes kept values editable; values dropped while it
	// was off are gone, and clients must set them again. Flipping a gate back
	// and forth thus decides which objects keep which data: it is a data
	// decision for the component's maintainers, not a toggle to try.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// fieldPaths are the gated fields of the CRD, written .spec.a.b. A path under
	// another gated path counts only while both gates are on. A path gates its
	// whole subtree, so a few paths cover a feature. A path has at most 6 names.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=128
	// +kubebuilder:validation:items:Pattern=`^(\.[A-Za-z_][A-Za-z0-9_]*){1,6}$`
	// +kubebuilder:validation:items:XValidation:rule="!self.matches('^\\\\.(metadata|apiVersion|kind)(\\\\.|$)')",message="a gated field path may not be under .metadata, .apiVersion or .kind",reason=FieldValueForbidden
	// +listType=set
	// +required
	FieldPaths []string `json:"fieldPaths,omitempty"`

	// deprecationWarning is the admission warning returned to requests that set a
	// field of this Deprecated gate; a default warning is used when unset.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=120
	// +optional
	DeprecationWarning string `json:"deprecationWarning,omitempty"`
}

// FeatureGateStatus is the effective state of one gate.
type FeatureGateStatus struct {
	// name is the gate's name.
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name,omitempty"`

	// enabled is the gate's effective state.
	// +required
	Enabled *bool `json:"enabled,omitempty"`

	// reason says how the state follows from the spec, e.g. StableAlwaysOn,
	// ExplicitlyEnabled or DefaultOff.
	// +kubebuilder:validation:MinLength=1
	// +optional
	Reason string `json:"reason,omitempty"`
}

// CustomFeatureGatesStatus is the observed state of a CustomFeatureGates object.
type CustomFeatureGatesStatus struct {
	// conditions are the kstatus conditions of the object: Ready, Reconciling and
	// Stalled; and ExplainNotes while the CRD asks for gate notes in its field
	// descriptions (annotation features.applyset.dev/explain: "true").
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation of the spec that was last reconciled.
	// +kubebuilder:validation:Minimum=1
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// featureGates are the effective states of the gates.
	// +listType=map
	// +listMapKey=name
	// +optional
	FeatureGates []FeatureGateStatus `json:"featureGates,omitempty"`

	// unknownFieldPaths are gated paths that the CRD's schema does not declare.
	// +listType=atomic
	// +optional
	UnknownFieldPaths []string `json:"unknownFieldPaths,omitempty"`

	// defaultedFieldPaths are gated paths whose schema declares a default: the API
	// server puts the default back after a drop, so their gates cannot work.
	// +listType=atomic
	// +optional
	DefaultedFieldPaths []string `json:"defaultedFieldPaths,omitempty"`
}

// Condition types of CustomFeatureGates, after kstatus.
const (
	// ConditionReady is True when the gates are evaluated and enforced by the API server.
	ConditionReady = "Ready"
	// ConditionReconciling is True while the operator works towards enforcing the gates.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when the gates cannot work without a change by a person.
	ConditionStalled = "Stalled"
	// ConditionExplainNotes is True when the gated fields' descriptions in the
	// CRD carry their gate notes, for kubectl explain; present only while the
	// CRD's owner asks for them.
	ConditionExplainNotes = "ExplainNotes"
)

// The rule refusing the operator's own CRDs judges creates only
// (optionalOldSelf): a name never changes, and an object stored before the
// rule must still take the status that says the operator does not act on it.

// CustomFeatureGates declares feature gates over fields of another CRD. Its name is
// the gated CRD's name (<plural>.<group>): one object per gated CRD. The
// operator's own CRDs (groups apply.applyset.dev and features.applyset.dev)
// may not be gated, and creating or changing the gates of a CRD needs the
// right to update that CRD (config/policy).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=cfg
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){2,}$')",message="metadata.name must be the gated CRD's name, <plural>.<group>, e.g. widgets.example.com",reason=FieldValueInvalid,fieldPath=".metadata"
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || !self.metadata.name.endsWith('.apply.applyset.dev') && !self.metadata.name.endsWith('.features.applyset.dev')",optionalOldSelf=true,message="metadata.name: the operator's own CRDs (groups apply.applyset.dev and features.applyset.dev) may not be gated: gates over them could switch off the operator's safeguards, such as the approval counter of ApplySets",reason=FieldValueForbidden,fieldPath=".metadata"
// +kubebuilder:printcolumn:name="Gates",type=string,JSONPath=`.spec.featureGates[*].name`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CustomFeatureGates struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`

	// spec declares the gates.
	// Defaulted to {} so that the defaults of its fields apply to an object without one.
	// +default={}
	// +optional
	Spec CustomFeatureGatesSpec `json:"spec,omitzero"`

	// status is the state the operator observed.
	// +optional
	Status CustomFeatureGatesStatus `json:"status,omitzero"`
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

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

// SetKind is the kind of a set another set may depend on.
type SetKind string

const (
	// SetKindApplySet is a namespaced ApplySet.
	SetKindApplySet SetKind = "ApplySet"
	// SetKindClusterApplySet is a ClusterApplySet.
	SetKindClusterApplySet SetKind = "ClusterApplySet"
)

// Dependency names what a set waits for. Without apiVersion it is a set: an
// ApplySet (kind omitted) or a ClusterApplySet, Ready for its current spec.
// With apiVersion it is any object, ready when readyExpr holds or, without
// one, when kstatus judges it Current.
// +kubebuilder:validation:XValidation:rule="has(self.apiVersion) || !has(self.kind) || self.kind in ['ApplySet', 'ClusterApplySet']",message="without apiVersion, kind is ApplySet or ClusterApplySet; name any other kind with its apiVersion",reason=FieldValueInvalid,fieldPath=".kind"
// +kubebuilder:validation:XValidation:rule="!has(self.apiVersion) || has(self.kind)",message="an object named by apiVersion needs its kind",reason=FieldValueRequired,fieldPath=".kind"
// +kubebuilder:validation:XValidation:rule="has(self.apiVersion) || !has(self.kind) || self.kind != 'ClusterApplySet' || !has(self.namespace)",message="a ClusterApplySet has no namespace",reason=FieldValueForbidden,fieldPath=".namespace"
// +kubebuilder:validation:XValidation:rule="has(self.apiVersion) || !has(self.readyExpr)",message="readyExpr judges an object named by apiVersion; a set is ready when its Ready condition is True",reason=FieldValueForbidden,fieldPath=".readyExpr"
type Dependency struct {
	// apiVersion is the object's group/version, e.g. cert-manager.io/v1; it
	// names any object. Without it the entry names a set.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`

	// kind is the object's kind, required with apiVersion. Without
	// apiVersion it is ApplySet (when omitted) or ClusterApplySet.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9]*$`
	// +optional
	Kind string `json:"kind,omitempty"`

	// name is the object's or the set's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +required
	Name string `json:"name,omitempty"`

	// namespace is a namespaced object's or an ApplySet's namespace; the
	// depending set's own when omitted. A ClusterApplySet names the
	// namespace of a namespaced object it depends on.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// readyExpr is a CEL expression over the object, true when it is ready,
	// e.g. self.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True').
	// As in health checks, the object is self and its top-level fields are
	// variables (metadata, spec, status). Its cost counts against the set's
	// health-check budget. Without it kstatus decides, as for members.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	ReadyExpr string `json:"readyExpr,omitempty"`
}

// NamesObject reports whether d names any object rather than a set.
func (d Dependency) NamesObject() bool { return d.APIVersion != "" }

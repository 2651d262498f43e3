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
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Resource is one inline Kubernetes object of a set. The schema declares the
// fields the API server validates (apiVersion, kind and the metadata the rules
// read) and keeps every other field as written.
//
// Items are not marked x-kubernetes-embedded-resource on purpose: CEL cannot
// read the labels of an embedded resource, and the part-of rule needs them.
//
// A Secret is not written inline: everyone who may read the set (the
// built-in view role, into which the viewer role is aggregated) would read
// its data, which Kubernetes keeps from them; it belongs in a Secret source.
// +kubebuilder:pruning:PreserveUnknownFields
// +kubebuilder:validation:XValidation:rule="!(self.apiVersion == 'v1' && self.kind == 'Secret')",message="a Secret is not written inline, where everyone who may read the set (the view role) reads its data: put its manifest in a Secret and name that in spec.sources",reason=FieldValueForbidden,fieldPath=".kind"
type Resource struct {
	// apiVersion is the object's group/version, e.g. v1 or apps/v1.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +required
	APIVersion string `json:"apiVersion,omitempty"`

	// kind is the object's kind, e.g. ConfigMap.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Kind string `json:"kind,omitempty"`

	// metadata is the object's metadata; it must name the object.
	// +required
	Metadata ResourceMetadata `json:"metadata,omitzero"`

	// Raw is the whole object as written, the fields above included. It is what
	// the object serializes to; the fields above are read from it on decoding.
	Raw []byte `json:"-"`
}

// ResourceMetadata is the metadata of an inline resource. Fields not declared
// here (ownerReferences, finalizers, ...) are kept as written.
// +kubebuilder:pruning:PreserveUnknownFields
// +kubebuilder:validation:XValidation:rule="!has(self.generateName)",message="generateName is not supported: give the object a fixed metadata.name so that the set can find it again",reason=FieldValueForbidden,fieldPath=".generateName"
// +kubebuilder:validation:XValidation:rule="!has(self.labels) || !('applyset.kubernetes.io/part-of' in self.labels)",message="remove the applyset.kubernetes.io/part-of label: the operator sets it to the ID of the set",reason=FieldValueForbidden,fieldPath=".labels"
type ResourceMetadata struct {
	// name is the object's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name,omitempty"`

	// namespace is the object's namespace; for a namespaced ApplySet, its own
	// namespace or one of spec.additionalNamespaces.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// generateName is not supported; it is declared so the rule can refuse it.
	// +kubebuilder:validation:MinLength=1
	// +optional
	GenerateName string `json:"generateName,omitempty"`

	// labels are the object's labels.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations are the object's annotations.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// resourceFields has Resource's fields without its JSON methods.
type resourceFields Resource

// UnmarshalJSON keeps the whole object in Raw and reads the declared fields from it.
func (r *Resource) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*r = Resource{}
		return nil
	}
	var fields resourceFields
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("decoding inline resource: %w", err)
	}
	*r = Resource(fields)
	r.Raw = bytes.Clone(data)
	return nil
}

// MarshalJSON writes Raw, or the declared fields when Raw is empty.
func (r Resource) MarshalJSON() ([]byte, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	return json.Marshal(resourceFields(r))
}

// NewResource makes a Resource of a whole object.
func NewResource(obj map[string]any) (Resource, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return Resource{}, fmt.Errorf("encoding inline resource: %w", err)
	}
	var r Resource
	err = r.UnmarshalJSON(data)
	return r, err
}

// Object returns the whole object as unstructured content.
func (r Resource) Object() (*unstructured.Unstructured, error) {
	data, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("decoding inline resource %s %q: %w", r.Kind, r.Metadata.Name, err)
	}
	return obj, nil
}

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

// Package crdvalidate validates custom resources offline, as the API server
// would validate a create: it prunes unknown fields and applies defaults from
// the CRD's structural schema, then runs the API server's own validation
// (metadata, OpenAPI schema, list types, embedded objects and CEL rules) from
// k8s.io/apiextensions-apiserver. The errors carry the field paths, types and
// messages a 422 response would.
package crdvalidate

import (
	"context"
	"fmt"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// Validator validates the kinds of a set of CRDs, and the policies over them.
type Validator struct {
	kinds    map[schema.GroupVersionKind]*kindValidator
	policies []*Policy
}

// kindValidator is what the API server builds for one served version.
type kindValidator struct {
	gvk             schema.GroupVersionKind
	resource        string
	namespaced      bool
	hasStatus       bool
	structural      *structuralschema.Structural
	schemaValidator apiservervalidation.SchemaValidator
	cel             *cel.Validator
}

// newValidator reads CRDs (YAML or JSON) and prepares a validator for every version they serve.
func newValidator(crds ...[]byte) (*Validator, error) {
	v := &Validator{kinds: map[schema.GroupVersionKind]*kindValidator{}}
	for _, data := range crds {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("reading a CRD: %w", err)
		}
		if err := v.add(crd); err != nil {
			return nil, fmt.Errorf("CRD %s: %w", crd.Name, err)
		}
	}
	return v, nil
}

func (v *Validator) add(crd *apiextensionsv1.CustomResourceDefinition) error {
	internal := &apiextensionsinternal.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return err
	}
	namespaced := internal.Spec.Scope == apiextensionsinternal.NamespaceScoped
	for _, version := range internal.Spec.Versions {
		// The conversion moves a schema all versions share to the spec.
		validation, err := apiextensionsinternal.GetSchemaForVersion(internal, version.Name)
		if err != nil {
			return err
		}
		if !version.Served || validation == nil || validation.OpenAPIV3Schema == nil {
			continue
		}
		subresources, err := apiextensionsinternal.GetSubresourcesForVersion(internal, version.Name)
		if err != nil {
			return err
		}
		props := validation.OpenAPIV3Schema
		structural, err := structuralschema.NewStructural(props)
		if err != nil {
			return fmt.Errorf("version %s: %w", version.Name, err)
		}
		schemaValidator, _, err := apiservervalidation.NewSchemaValidator(props)
		if err != nil {
			return fmt.Errorf("version %s: %w", version.Name, err)
		}
		gvk := schema.GroupVersionKind{Group: internal.Spec.Group, Version: version.Name, Kind: internal.Spec.Names.Kind}
		v.kinds[gvk] = &kindValidator{gvk: gvk, resource: internal.Spec.Names.Plural, namespaced: namespaced, structural: structural, schemaValidator: schemaValidator,
			hasStatus: subresources != nil && subresources.Status != nil,
			// As the API server compiles them: CEL programs once, per-call cost bounded.
			cel: cel.NewValidator(structural, true, celconfig.PerCallLimit)}
	}
	return nil
}

// WithPolicies adds admission policies, evaluated on objects the schemas accept.
func (v *Validator) WithPolicies(policies ...*Policy) *Validator {
	v.policies = append(v.policies, policies...)
	return v
}

// Knows reports whether the validator has the schema of gvk.
func (v *Validator) Knows(gvk schema.GroupVersionKind) bool {
	_, ok := v.kinds[gvk]
	return ok
}

// Validate checks obj as the API server checks a create: it works on a copy,
// pruned of unknown fields and defaulted, and returns that copy with the
// errors. An error is returned for a kind the validator does not know.
func (v *Validator) Validate(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, field.ErrorList, error) {
	k, ok := v.kinds[obj.GroupVersionKind()]
	if !ok {
		return nil, nil, fmt.Errorf("no schema for %s", obj.GroupVersionKind())
	}
	out := obj.DeepCopy()
	structuralpruning.Prune(out.Object, k.structural, true)
	structuraldefaulting.Default(out.Object, k.structural)
	if k.hasStatus {
		delete(out.Object, "status") // a create cannot set status
	}
	out.SetGeneration(1)
	return out, k.validate(ctx, out), nil
}

// UnknownFields lists the fields of obj its schema does not declare, which
// the API server drops, or refuses under kubectl's default strict field
// validation.
func (v *Validator) UnknownFields(obj *unstructured.Unstructured) []string {
	k, ok := v.kinds[obj.GroupVersionKind()]
	if !ok {
		return nil
	}
	return structuralpruning.PruneWithOptions(obj.DeepCopy().Object, k.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
}

// Check validates obj as Validate does and, when its schema accepts it, runs
// the policies that match it, as the API server runs validating admission
// after the schema. It returns the schema's errors, or a *PolicyDenial, or
// nil; err is for what prevents the check.
func (v *Validator) Check(ctx context.Context, obj *unstructured.Unstructured) (field.ErrorList, error) {
	out, errs, err := v.Validate(ctx, obj)
	if err != nil || len(errs) > 0 {
		return errs, err
	}
	k := v.kinds[obj.GroupVersionKind()]
	for _, p := range v.policies {
		if !p.Applies(k.gvk.Group, k.resource) {
			continue
		}
		if err := p.Evaluate(out); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

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

package apply

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Target is the set the inputs are checked against.
type Target struct {
	// Scope is where members may live.
	Scope applyset.Scope
	// DefaultNamespace is given to namespaced objects that name none; empty
	// makes such objects an error (a cluster-scoped parent has no namespace).
	DefaultNamespace string
	// Mapper knows the kinds the cluster serves.
	Mapper meta.RESTMapper
}

// Object is a checked input: its type and identity are known.
type Object struct {
	Input
	// Mapping is nil while the object's kind is defined by a CRD of the same
	// set that the cluster does not serve yet.
	Mapping *meta.RESTMapping
	// Resource is the object's resource, known from the CRD of the same set
	// while Mapping is nil.
	Resource schema.GroupResource
	// Group is the object's place in the apply order, and DependsOn what its
	// depends-on annotation names: both set by Order.
	Group     int
	DependsOn []ObjectRef
}

// Ref identifies an object by group, kind, namespace and name.
func (o Object) Ref() ObjectRef {
	return ObjectRef{GroupKind: o.Object.GroupVersionKind().GroupKind(), Namespace: o.Object.GetNamespace(), Name: o.Object.GetName()}
}

// InputError is an input the set cannot take, and why.
type InputError struct {
	Origin  string
	Message string
}

func (e InputError) Error() string { return e.Origin + ": " + e.Message }

// InputWarning is an input the set took although part of it was left out,
// as kubectl leaves it out: a person should hear of it all the same.
type InputWarning struct {
	Origin  string
	Message string
}

func (w InputWarning) String() string { return w.Origin + ": " + w.Message }

// Check resolves the inputs' types and checks them against the target: each
// names its apiVersion, kind and name; none claims a set already; no object is
// declared twice with different content; every kind is served by the cluster
// or defined by a CRD in the same inputs; namespaced objects lie in the scope.
// The inputs' objects get the default namespace where they need one. As
// kubectl does, it drops the namespace a cluster-scoped object names and
// keeps one of identical copies, with a warning for each. It returns the
// checked objects and the warnings, or every problem found.
func Check(inputs []Input, target Target) ([]Object, []InputWarning, error) {
	declaredCRDs := crdKinds(inputs)
	seen := map[ObjectRef]Input{}
	objects := make([]Object, 0, len(inputs))
	var problems []error
	var warnings []InputWarning
	for _, in := range inputs {
		o, warning, problem := checkOne(in, target, declaredCRDs)
		if problem != "" {
			problems = append(problems, InputError{Origin: in.Origin, Message: problem})
			continue
		}
		if first, dup := seen[o.Ref()]; dup {
			// kubectl would apply both, the last one winning: a silent
			// surprise when they differ, so only exact copies pass.
			if !equality.Semantic.DeepEqual(first.Object.Object, in.Object.Object) {
				problems = append(problems, InputError{Origin: in.Origin,
					Message: fmt.Sprintf("%s is declared twice with different content, also at %s; keep one", o.Ref(), first.Origin)})
				continue
			}
			warnings = append(warnings, InputWarning{Origin: in.Origin,
				Message: fmt.Sprintf("%s repeats %s exactly; the copy is ignored", o.Ref(), first.Origin)})
			continue
		}
		if warning != "" {
			warnings = append(warnings, InputWarning{Origin: in.Origin, Message: warning})
		}
		seen[o.Ref()] = in
		objects = append(objects, o)
	}
	if len(problems) > 0 {
		return nil, nil, errors.Join(problems...)
	}
	return objects, warnings, nil
}

// checkOne checks one input, giving it the default namespace where it needs
// one and dropping the namespace of a cluster-scoped object, and returns what
// it dropped and what is wrong with it, if anything.
func checkOne(in Input, target Target, declaredCRDs map[schema.GroupKind]declaredType) (o Object, warning, problem string) {
	obj := in.Object
	gvk := obj.GroupVersionKind()
	if problem := identityProblem(obj); problem != "" {
		return Object{}, "", problem
	}
	namespaced, mapping, resource, err := typeOf(gvk, target.Mapper, declaredCRDs)
	switch {
	case err != nil:
		return Object{}, "", err.Error()
	case !namespaced && obj.GetNamespace() != "":
		// kubectl and the API server ignore it; so do we, but say so.
		warning = fmt.Sprintf("%s %s is cluster-scoped; its metadata.namespace %s is ignored", gvk.Kind, obj.GetName(), obj.GetNamespace())
		unstructured.RemoveNestedField(obj.Object, "metadata", "namespace")
	case namespaced && obj.GetNamespace() == "" && target.DefaultNamespace == "":
		return Object{}, "", fmt.Sprintf("%s %s is namespaced and names no namespace; set metadata.namespace", gvk.Kind, obj.GetName())
	case namespaced && obj.GetNamespace() == "":
		obj.SetNamespace(target.DefaultNamespace)
	}
	if namespaced && !target.Scope.Contains(obj.GetNamespace()) {
		return Object{}, "", fmt.Sprintf("%s %s/%s lies outside the set's namespaces (%s); add %s to spec.additionalNamespaces",
			gvk.Kind, obj.GetNamespace(), obj.GetName(), strings.Join(target.Scope.Namespaces(), ", "), obj.GetNamespace())
	}
	return Object{Input: in, Mapping: mapping, Resource: resource}, warning, ""
}

// identityProblem tells what keeps obj from being identified as a member.
func identityProblem(obj *unstructured.Unstructured) string {
	kind := obj.GetKind()
	switch {
	case obj.GetAPIVersion() == "" || kind == "":
		return "apiVersion and kind are required"
	case !nameIsString(obj):
		return kind + "'s metadata.name is not a string; quote it (YAML reads unquoted y, n, yes, no, on and off as booleans)"
	case obj.GetName() == "" && obj.GetGenerateName() != "":
		return kind + " uses generateName; give it a fixed metadata.name so the set can find it again"
	case obj.GetName() == "":
		return kind + " has no metadata.name"
	case obj.GetLabels()[applyset.PartOfLabel] != "":
		return fmt.Sprintf("%s %s carries the %s label; remove it: the operator sets it", kind, obj.GetName(), applyset.PartOfLabel)
	}
	return ""
}

func nameIsString(obj *unstructured.Unstructured) bool {
	_, _, err := unstructured.NestedString(obj.Object, "metadata", "name")
	return err == nil
}

// declaredType is a kind that a CRD among the inputs defines.
type declaredType struct {
	namespaced bool
	resource   schema.GroupResource
}

// crdKinds maps the kinds that CRDs among the inputs define to their types.
func crdKinds(inputs []Input) map[schema.GroupKind]declaredType {
	kinds := map[schema.GroupKind]declaredType{}
	for _, in := range inputs {
		if in.Object.GroupVersionKind().GroupKind() != crdGroupKind {
			continue
		}
		group, _, _ := unstructured.NestedString(in.Object.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(in.Object.Object, "spec", "names", "kind")
		plural, _, _ := unstructured.NestedString(in.Object.Object, "spec", "names", "plural")
		scope, _, _ := unstructured.NestedString(in.Object.Object, "spec", "scope")
		if kind != "" {
			kinds[schema.GroupKind{Group: group, Kind: kind}] = declaredType{
				namespaced: scope != "Cluster", resource: schema.GroupResource{Group: group, Resource: plural},
			}
		}
	}
	return kinds
}

var (
	crdGroupKind       = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	namespaceGroupKind = schema.GroupKind{Kind: "Namespace"}
)

// typeOf tells whether gvk is namespaced and what its resource is, from the
// cluster's types or from a CRD declared alongside; the mapping is nil for the
// latter until it is served.
func typeOf(gvk schema.GroupVersionKind, mapper meta.RESTMapper, declared map[schema.GroupKind]declaredType) (
	bool, *meta.RESTMapping, schema.GroupResource, error) {
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err == nil {
		return mapping.Scope.Name() == meta.RESTScopeNameNamespace, mapping, mapping.Resource.GroupResource(), nil
	}
	if t, ok := declared[gvk.GroupKind()]; ok {
		return t.namespaced, nil, t.resource, nil
	}
	if meta.IsNoMatchError(err) {
		return false, nil, schema.GroupResource{}, fmt.Errorf("the cluster does not serve %s, and no CustomResourceDefinition in the set defines it", gvk)
	}
	return false, nil, schema.GroupResource{}, fmt.Errorf("looking up %s: %w", gvk, err)
}

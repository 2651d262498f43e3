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

package featuregate

import (
	"errors"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The probes of probe.go prove that the API server runs a policy or calls a
// webhook entry, through a status patch of the CustomFeatureGates object.
// They do not prove that a write of the gated kind gets through: for some
// seconds after a CRD is created, the API server's mutating admission
// policies refuse every write of its kind that a policy matches with 503
// "Resource kind ... not found", until the plugin has read the kind's schema
// from the server's own OpenAPI document. So Ready waits, too, for a
// server-side dry-run create of an object of the gated kind that sets every
// gated field: the writes the gates act on, matched as they are.

// WriteProbeObject is the object of that dry-run create: crd's storage
// version and kind, a generated name in namespace (namespaced kinds only),
// and each of paths (.spec.a.b) set to the zero value of its schema type.
// Nothing else is set, so validation may well refuse it: that refusal comes
// after the mutating admission the probe asks about.
func WriteProbeObject(crd *apiextensionsv1.CustomResourceDefinition, paths []string, namespace string) (*unstructured.Unstructured, bool) {
	t, ok := TargetOf(crd)
	if !ok {
		return nil, false
	}
	var schema *apiextensionsv1.JSONSchemaProps
	for _, v := range crd.Spec.Versions {
		if v.Storage && v.Schema != nil {
			schema = v.Schema.OpenAPIV3Schema
		}
	}
	obj := &unstructured.Unstructured{Object: map[string]any{}}
	obj.SetAPIVersion(t.Group + "/" + t.Version)
	obj.SetKind(crd.Spec.Names.Kind)
	obj.SetGenerateName("featuregate-probe-")
	if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
		obj.SetNamespace(namespace)
	}
	// Deeper paths first: a gated object that holds another gated path is
	// then an object, with that path set in it.
	sorted := slices.Clone(paths)
	slices.SortStableFunc(sorted, func(a, b string) int { return strings.Count(b, ".") - strings.Count(a, ".") })
	for _, p := range sorted {
		names := strings.Split(strings.TrimPrefix(p, "."), ".")
		if len(names) == 0 || names[0] == "metadata" || names[0] == "apiVersion" || names[0] == "kind" {
			continue
		}
		if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, names...); found {
			continue
		}
		node, _ := lookupSchema(schema, names)
		_ = unstructured.SetNestedField(obj.Object, zeroOf(node), names...)
	}
	return obj, true
}

// zeroOf is the zero value of node's type; an object for a path the schema
// does not describe.
func zeroOf(node *apiextensionsv1.JSONSchemaProps) any {
	if node == nil {
		return map[string]any{}
	}
	switch node.Type {
	case "string":
		return ""
	case "integer":
		return int64(0)
	case "number":
		return float64(0)
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	return map[string]any{}
}

// WriteProbeAnswer is what the API server's answer to the dry-run create of
// WriteProbeObject says.
type WriteProbeAnswer int

const (
	// WriteAdmitted is a write that passed mutating admission. It was stored (as
	// a dry run), or refused only later: by validation (422), a validating
	// policy or webhook, or a webhook's decision on its content.
	WriteAdmitted WriteProbeAnswer = iota
	// WriteNotAdmitted is a write the API server refused before or during mutating
	// admission, or could not answer: the 503 of a kind the mutating
	// policies do not know yet, a policy that failed, a webhook that could
	// not be called, a policy plugin not ready, a kind not served yet.
	WriteNotAdmitted
	// WriteProbeForbidden is a write refused because the identity that probes may not create the kind,
	// so the answer says nothing of admission.
	WriteProbeForbidden
)

// ReadWriteProbe reads the API server's answer err to the dry-run create of
// WriteProbeObject.
func ReadWriteProbe(err error) WriteProbeAnswer {
	var status apierrors.APIStatus
	if err == nil {
		return WriteAdmitted
	}
	if !errors.As(err, &status) {
		return WriteNotAdmitted
	}
	msg := status.Status().Message
	switch {
	case apierrors.IsForbidden(err) && strings.Contains(msg, " is forbidden: User \"") && strings.Contains(msg, " cannot create resource "):
		return WriteProbeForbidden
	case mutatingPolicyFailed(msg):
		// A mutating policy failed (Invalid, or Forbidden without a reason).
		return WriteNotAdmitted
	case apierrors.IsForbidden(err) && strings.HasSuffix(msg, "not yet ready to handle request"):
		return WriteNotAdmitted // an admission policy plugin still loading
	case apierrors.IsInvalid(err), apierrors.IsForbidden(err), apierrors.IsAlreadyExists(err):
		return WriteAdmitted
	}
	return WriteNotAdmitted
}

// mutatingPolicyFailed says msg is the refusal of a request by a mutating
// admission policy whose mutation failed: the API server words it
// "policy 'name' with binding 'name' denied request: ..." (a validating
// policy's says "ValidatingAdmissionPolicy 'name' ...").
func mutatingPolicyFailed(msg string) bool {
	return strings.HasPrefix(msg, "policy '") || strings.HasPrefix(msg, `policy "`)
}

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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The answers are built as the API server builds them.
func TestReadWriteProbe(t *testing.T) {
	widgets := schema.GroupResource{Group: "example.com", Resource: "widgets"}
	withReason := func(code int32, reason metav1.StatusReason, msg string) error {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg}}
	}
	for _, tc := range []struct {
		name string
		err  error
		want WriteProbeAnswer
	}{
		{"stored, as a dry run", nil, WriteAdmitted},
		{"refused by validation (422): the mutating phase passed", apierrors.NewInvalid(schema.GroupKind{Group: "example.com", Kind: "Widget"}, "w",
			field.ErrorList{field.Required(field.NewPath("spec", "name"), "")}), WriteAdmitted},
		{"refused by a validating policy", withReason(422, metav1.StatusReasonInvalid,
			"ValidatingAdmissionPolicy 'no-widgets' with binding 'no-widgets' denied request: no"), WriteAdmitted},
		{"refused by a validating policy as Forbidden", withReason(403, metav1.StatusReasonForbidden,
			"ValidatingAdmissionPolicy 'no-widgets' with binding 'no-widgets' denied request: no"), WriteAdmitted},
		{"denied by a webhook on its content", withReason(403, metav1.StatusReasonForbidden,
			`admission webhook "check.example.com" denied the request: no`), WriteAdmitted},
		{"the mutating policies do not know the kind yet (503)", apierrors.NewServiceUnavailable(
			"Resource kind example.com/v1, Kind=Widget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available."),
			WriteNotAdmitted},
		{"another 503", apierrors.NewServiceUnavailable("the server is currently unable to handle the request"), WriteNotAdmitted},
		{"a mutating policy failed", withReason(403, metav1.StatusReasonInvalid,
			"policy 'featuregates.widgets.example.com' with binding 'featuregates.widgets.example.com' denied request: JSON Patch: remove failed"),
			WriteNotAdmitted},
		{"a mutating policy failed, with no binding named", withReason(403, metav1.StatusReasonInvalid,
			`policy "featuregates.widgets.example.com" denied request: expression failed`), WriteNotAdmitted},
		{"a policy plugin still loading", apierrors.NewForbidden(widgets, "", errors.New("not yet ready to handle request")), WriteNotAdmitted},
		{"a webhook that cannot be called", apierrors.NewInternalError(errors.New(
			`failed calling webhook "unreachable.example.com": failed to call webhook: connection refused`)), WriteNotAdmitted},
		{"a kind not served yet", apierrors.NewNotFound(widgets, ""), WriteNotAdmitted},
		{"a kind the client cannot map yet", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "example.com", Kind: "Widget"}}, WriteNotAdmitted},
		{"a timeout", apierrors.NewTimeoutError("slow", 1), WriteNotAdmitted},
		{"the probe identity may not create the kind", apierrors.NewForbidden(widgets, "", errors.New(
			`User "system:applyset-operator:featuregate-probe" cannot create resource "widgets" in API group "example.com" in the namespace "default"`)),
			WriteProbeForbidden},
		{"wrapped", fmt.Errorf("probing: %w", apierrors.NewServiceUnavailable(
			"Resource kind example.com/v1, Kind=Widget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.")),
			WriteNotAdmitted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ReadWriteProbe(tc.err); got != tc.want {
				t.Errorf("ReadWriteProbe(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestWriteProbeObject(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true},
				{Name: "v1", Served: true, Storage: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"replicas": {Type: "integer"}, "color": {Type: "string"}, "ratio": {Type: "number"}, "on": {Type: "boolean"},
						"ports":       {Type: "array"},
						"autoscaling": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"min": {Type: "integer"}}},
						"extra":       {Type: "object", XPreserveUnknownFields: ptr.To(true)},
					}}}}}},
			},
		},
	}
	obj, ok := WriteProbeObject(crd, []string{".spec.autoscaling", ".spec.replicas", ".spec.color", ".spec.ratio", ".spec.on",
		".spec.ports", ".spec.autoscaling.min", ".spec.extra.anything", ".metadata.labels"}, "probes")
	if !ok {
		t.Fatal("no probe object for a CRD with a storage version")
	}
	want := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"generateName": "featuregate-probe-", "namespace": "probes"},
		"spec": map[string]any{"replicas": int64(0), "color": "", "ratio": float64(0), "on": false, "ports": []any{},
			"autoscaling": map[string]any{"min": int64(0)}, "extra": map[string]any{"anything": map[string]any{}}},
	}
	if diff := cmp.Diff(want, obj.Object); diff != "" {
		t.Errorf("WriteProbeObject (-want +got):\n%s", diff)
	}

	crd.Spec.Scope = apiextensionsv1.ClusterScoped
	if obj, _ := WriteProbeObject(crd, nil, "probes"); obj.GetNamespace() != "" {
		t.Errorf("a cluster-scoped kind's probe object is in namespace %q", obj.GetNamespace())
	}
	crd.Spec.Versions[1].Storage = false
	if _, ok := WriteProbeObject(crd, nil, "probes"); ok {
		t.Error("a probe object for a CRD without a storage version")
	}
}

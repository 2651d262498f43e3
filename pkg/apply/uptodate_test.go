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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestUpToDate(t *testing.T) {
	desired := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "a", "namespace": "ns", "labels": map[string]any{"part-of": "x"}},
			"data":     map[string]any{"k": "v"},
		}}
	}
	managed := func(manager string, op metav1.ManagedFieldsOperationType, fields string) []metav1.ManagedFieldsEntry {
		return []metav1.ManagedFieldsEntry{{Manager: manager, Operation: op, FieldsV1: metav1.NewFieldsV1(fields)}}
	}
	const ours = `{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:part-of":{}}}}`
	existing := func(mutate func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		u := desired()
		u.SetUID("uid")
		u.SetResourceVersion("7")
		u.Object["data"].(map[string]any)["other"] = "kept"
		u.SetManagedFields(managed("applyset-operator", metav1.ManagedFieldsOperationApply, ours))
		if mutate != nil {
			mutate(u)
		}
		return u
	}

	tests := []struct {
		name     string
		existing *unstructured.Unstructured
		want     bool
	}{
		{name: "every declared value in place, nothing else owned", existing: existing(nil), want: true},
		{name: "missing", existing: nil, want: false},
		{name: "a declared value differs", existing: existing(func(u *unstructured.Unstructured) {
			u.Object["data"].(map[string]any)["k"] = "changed"
		}), want: false},
		{name: "the label is missing", existing: existing(func(u *unstructured.Unstructured) { u.SetLabels(nil) }), want: false},
		{name: "we own a field the declaration dropped", existing: existing(func(u *unstructured.Unstructured) {
			u.SetManagedFields(managed("applyset-operator", metav1.ManagedFieldsOperationApply,
				`{"f:data":{"f:k":{},"f:old":{}},"f:metadata":{"f:labels":{"f:part-of":{}}}}`))
		}), want: false},
		{name: "another manager's fields do not matter", existing: existing(func(u *unstructured.Unstructured) {
			u.SetManagedFields(append(u.GetManagedFields(), managed("kubectl", metav1.ManagedFieldsOperationApply, `{"f:data":{"f:other":{}}}`)...))
		}), want: true},
		{name: "ownership in associative lists cannot be compared", existing: existing(func(u *unstructured.Unstructured) {
			u.SetManagedFields(managed("applyset-operator", metav1.ManagedFieldsOperationApply,
				`{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}}`))
		}), want: false},
		{name: "never applied by us", existing: existing(func(u *unstructured.Unstructured) { u.SetManagedFields(nil) }), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := upToDate(tt.existing, desired(), "applyset-operator"); got != tt.want {
				t.Errorf("upToDate = %v, want %v", got, tt.want)
			}
		})
	}
}

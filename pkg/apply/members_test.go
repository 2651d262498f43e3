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

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// A compact member is judged as the member as listed: the same label
// writers, the same proof, the metadata a prune and a release read.
func TestCompactIsJudgedAsListed(t *testing.T) {
	fields := metav1.NewFieldsV1
	labelled := `{"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":{}}},"f:data":{"f:k":{}}}`
	cases := map[string][]metav1.ManagedFieldsEntry{
		"applied by the set": {{Manager: fieldManager, Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: fields(labelled)}},
		"labelled by another": {
			{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: fields(labelled)},
			{Manager: "other", Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: fields(`{"f:data":{"f:x":{}}}`)},
		},
		"a status writer beside the set": {
			{Manager: fieldManager, Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: fields(labelled)},
			{Manager: "controller", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", FieldsType: "FieldsV1", FieldsV1: fields(`{"f:status":{}}`)},
		},
		"no managed fields": nil,
	}
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	proof := LabelAppliedBy(sets.New(fieldManager))
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			item := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", UID: "u1", ResourceVersion: "7",
				Labels: map[string]string{applyset.PartOfLabel: "applyset-x-v1"}, Annotations: map[string]string{DependsOnAnnotation: "v1/ConfigMap/ns/a"},
				ManagedFields: entries}}
			before := item.DeepCopy()
			got := compact(item, gvk)
			ref := ObjectRef{GroupKind: gvk.GroupKind(), Namespace: "ns", Name: "cm"}

			if diff := cmp.Diff(applyset.PartOfWriters(item.ManagedFields), applyset.PartOfWriters(got.ManagedFields)); diff != "" {
				t.Errorf("label writers differ (-listed +compact):\n%s", diff)
			}
			if proof(ref, item) != proof(ref, got) {
				t.Errorf("proof of the listed %v, of the compact %v", proof(ref, item), proof(ref, got))
			}
			for _, e := range got.ManagedFields {
				if e.FieldsV1 != nil {
					t.Errorf("%s's field set was kept", e.Manager)
				}
			}
			wantMeta := before.ObjectMeta
			wantMeta.ManagedFields = nil
			gotMeta := got.ObjectMeta
			gotMeta.ManagedFields = nil
			if diff := cmp.Diff(wantMeta, gotMeta); diff != "" {
				t.Errorf("metadata differs (-listed +compact):\n%s", diff)
			}
			if got.GroupVersionKind() != gvk {
				t.Errorf("kind %v, want %v", got.GroupVersionKind(), gvk)
			}
			if diff := cmp.Diff(before, item); diff != "" {
				t.Errorf("the listed object changed:\n%s", diff)
			}
		})
	}
}

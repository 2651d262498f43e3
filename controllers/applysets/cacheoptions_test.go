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

package applysets

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The cache keeps of a watched ConfigMap, Secret or ServiceAccount what the
// reconcilers read from it, and nothing else.
func TestKeepIdentity(t *testing.T) {
	now := metav1.Now()
	full := metav1.ObjectMeta{Name: "src", Namespace: "ns", UID: "u1", ResourceVersion: "42", Generation: 3, DeletionTimestamp: &now,
		CreationTimestamp: now, Labels: map[string]string{"applyset.kubernetes.io/part-of": "applyset-x-v1"},
		Annotations:     map[string]string{"big": string(make([]byte, 4096))},
		OwnerReferences: []metav1.OwnerReference{{Kind: "ApplySet", Name: "x", UID: "p"}}, Finalizers: []string{"f"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply}}}
	typeMeta := metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}

	got, err := keepIdentity(&metav1.PartialObjectMetadata{TypeMeta: typeMeta, ObjectMeta: *full.DeepCopy()})
	if err != nil {
		t.Fatal(err)
	}
	want := &metav1.PartialObjectMetadata{TypeMeta: typeMeta, ObjectMeta: metav1.ObjectMeta{Name: "src", Namespace: "ns", UID: "u1",
		ResourceVersion: "42", Generation: 3, DeletionTimestamp: &now}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata kept (-want +got):\n%s", diff)
	}

	// A whole object keeps everything but its managedFields.
	cm := &corev1.ConfigMap{TypeMeta: typeMeta, ObjectMeta: *full.DeepCopy(), Data: map[string]string{"k": "v"}}
	got, err = keepIdentity(cm)
	if err != nil {
		t.Fatal(err)
	}
	wantCM := &corev1.ConfigMap{TypeMeta: typeMeta, ObjectMeta: *full.DeepCopy(), Data: map[string]string{"k": "v"}}
	wantCM.ManagedFields = nil
	if diff := cmp.Diff(wantCM, got); diff != "" {
		t.Errorf("whole object kept (-want +got):\n%s", diff)
	}
}

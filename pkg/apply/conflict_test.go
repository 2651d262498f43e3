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
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// applyConflict is the error the API server returns when managers hold fields.
func applyConflict(causes ...metav1.StatusCause) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: 409, Reason: metav1.StatusReasonConflict,
		Message: "Apply failed", Details: &metav1.StatusDetails{Causes: causes},
	}}
}

func heldBy(manager, field string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldManagerConflict,
		Message: `conflict with "` + manager + `" using v1`, Field: field}
}

func TestConflicts(t *testing.T) {
	ref := ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "ns", Name: "cm"}
	tests := []struct {
		name         string
		err          error
		wantManagers []string
		wantFields   []string
	}{
		{name: "no error", err: nil},
		{name: "another error", err: errors.New("connection refused")},
		{name: "a conflict without causes", err: applyConflict()},
		{
			name:         "two managers, fields grouped by manager",
			err:          applyConflict(heldBy("kubectl", ".data.b"), heldBy("helm", ".data.a"), heldBy("kubectl", ".data.c")),
			wantManagers: []string{"helm", "kubectl"},
			wantFields:   []string{".data.a", ".data.b", ".data.c"},
		},
		{
			name:         "a cause that names no manager",
			err:          applyConflict(metav1.StatusCause{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.x"}),
			wantManagers: []string{"another field manager"},
			wantFields:   []string{".spec.x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			managers := ConflictManagers(tt.err)
			if len(managers) != len(tt.wantManagers) || (len(managers) > 0 && !reflect.DeepEqual(managers, tt.wantManagers)) {
				t.Errorf("ConflictManagers() = %v, want %v", managers, tt.wantManagers)
			}
			c := conflictOf(ref, tt.err)
			if tt.wantManagers == nil {
				if c != nil {
					t.Errorf("conflictOf() = %+v, want none", c)
				}
				return
			}
			if c == nil || c.Ref != ref || !reflect.DeepEqual(c.Fields, tt.wantFields) || !reflect.DeepEqual(c.managers, tt.wantManagers) {
				t.Fatalf("conflictOf() = %+v, want managers %v and fields %v", c, tt.wantManagers, tt.wantFields)
			}
		})
	}
}

func TestOnlyDigestConflicts(t *testing.T) {
	digest := heldBy("other-engine", configDigestField)
	if !onlyDigestConflicts(applyConflict(digest)) {
		t.Error("a conflict over the digest alone was not recognised")
	}
	if onlyDigestConflicts(applyConflict(digest, heldBy("team-b", ".data.k"))) {
		t.Error("a conflict over a field of the set was taken for bookkeeping")
	}
	if onlyDigestConflicts(applyConflict()) || onlyDigestConflicts(errors.New("x")) {
		t.Error("a conflict without causes, or another error, was taken for bookkeeping")
	}
	if c := conflictOf(ObjectRef{}, applyConflict(digest, heldBy("team-b", ".data.k"))); c == nil || len(c.Fields) != 1 {
		t.Errorf("conflictOf() = %+v, want only .data.k", c)
	}
}

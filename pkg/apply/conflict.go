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
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// configDigestField is the path of the applied-config digest in conflicts.
const configDigestField = ".metadata.annotations." + appliedConfigAnnotation

// conflictOf reads the field managers and fields of an apply conflict over the
// object ref; nil when err is no apply conflict.
func conflictOf(ref ObjectRef, err error) *Conflict {
	byManager := conflictCauses(err)
	if len(byManager) == 0 {
		return nil
	}
	// One conflict per object, naming every manager involved.
	managers := slices.Sorted(maps.Keys(byManager))
	var fields []string
	for _, manager := range managers {
		fields = append(fields, byManager[manager]...)
	}
	return &Conflict{Ref: ref, Manager: strings.Join(managers, ", "), Fields: fields, managers: managers}
}

// ConflictManagers returns the field managers an apply conflict names, sorted;
// none when err is no apply conflict. It is for callers that want to say who
// holds the fields without describing an object.
func ConflictManagers(err error) []string {
	return slices.Sorted(maps.Keys(conflictCauses(err)))
}

// conflictCauses maps each field manager of an apply conflict to the fields
// it holds, as the API server lists them in the error's causes.
func conflictCauses(err error) map[string][]string {
	var status apierrors.APIStatus
	if err == nil || !apierrors.IsConflict(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	byManager := map[string][]string{}
	for _, c := range status.Status().Details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict || c.Field == configDigestField {
			continue // the digest is the engine's own bookkeeping, not a field of the set
		}
		manager := "another field manager"
		if _, rest, ok := strings.Cut(c.Message, `conflict with "`); ok {
			manager = strings.SplitN(rest, `"`, 2)[0]
		}
		byManager[manager] = append(byManager[manager], c.Field)
	}
	return byManager
}

// onlyEdited reports whether every one of managers changed obj only through
// updates (kubectl edit, scale, client-side apply), never through apply.
func onlyEdited(obj *unstructured.Unstructured, managers []string) bool {
	for _, m := range managers {
		for _, entry := range obj.GetManagedFields() {
			if entry.Manager == m && entry.Operation != metav1.ManagedFieldsOperationUpdate {
				return false
			}
		}
	}
	return len(managers) > 0
}

// onlyDigestConflicts reports whether an apply conflict is over the
// applied-config digest alone.
func onlyDigestConflicts(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsConflict(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	found := false
	for _, c := range status.Status().Details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		if c.Field != configDigestField {
			return false
		}
		found = true
	}
	return found
}

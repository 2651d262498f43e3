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
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func (r *Reconciler) parentKey(set applyv1alpha1.Set) applyset.ParentKey {
	return applyset.ParentKey{GroupKind: r.groupKind, Namespace: set.GetNamespace(), Name: set.GetName()}
}

// checkParent refuses a set whose ID label is not its own or that another tool manages.
func checkParent(set applyv1alpha1.Set, parent applyset.Parent) (string, error) {
	if id := set.GetLabels()[applyset.IDLabel]; id != "" && !parent.Trusted() {
		return applyv1alpha1.ReasonIDMismatch, fmt.Errorf("the %s label is %s, not this set's ID %s; "+
			"remove the label to let the operator set it", applyset.IDLabel, id, parent.Key.ID())
	}
	if t := parent.Tooling; t.Name != "" && !identity.Owns(t) {
		return applyset.ReasonForeignTooling, fmt.Errorf("the set is managed by %s; the operator does not touch "+
			"another tool's set (remove the %s annotation to hand it over)", t, applyset.ToolingAnnotation)
	}
	return "", nil
}

// metadataOf names set for a write whose answer is read as metadata only:
// the API server then sends back neither the set's inline objects nor its
// status, which the reconciler has in hand.
func metadataOf(set applyv1alpha1.Set, gvk schema.GroupVersionKind) *metav1.PartialObjectMetadata {
	out := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: set.GetNamespace(), Name: set.GetName()}}
	out.SetGroupVersionKind(gvk)
	return out
}

func hasAll(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func (r *Reconciler) gvk() (schema.GroupVersionKind, error) {
	gvks, _, err := r.scheme.ObjectKinds(r.newSet())
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("the scheme does not know %s: %w", r.groupKind, err)
	}
	return gvks[0], nil
}

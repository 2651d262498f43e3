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

package adopt

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestHandOver(t *testing.T) {
	label := `{"f:metadata":{"f:labels":{"f:` + applyset.PartOfLabel + `":{}}}}`
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsV1: metav1.NewFieldsV1(fields)}
	}
	apply, update := metav1.ManagedFieldsOperationApply, metav1.ManagedFieldsOperationUpdate
	adopting := entry("kubectl-applyset-adopt", apply, label)
	for name, tc := range map[string]struct {
		entries  []metav1.ManagedFieldsEntry
		appliers []string
		want     []metav1.ManagedFieldsEntry
	}{
		"the label alone, renamed": {
			entries: []metav1.ManagedFieldsEntry{entry("kubectl-client-side-apply", update, `{"f:data":{"f:k":{}}}`), adopting},
			want:    []metav1.ManagedFieldsEntry{entry("kubectl-client-side-apply", update, `{"f:data":{"f:k":{}}}`), entry("kubectl", apply, label)},
		},
		"joined to kubectl's apply entry": {
			entries: []metav1.ManagedFieldsEntry{entry("kubectl", apply, `{"f:data":{"f:k":{}}}`), adopting},
			want: []metav1.ManagedFieldsEntry{entry("kubectl", apply,
				`{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:`+applyset.PartOfLabel+`":{}}}}`)},
		},
		"Helm's apply entry handed over, its update entry and others kept": {
			entries: []metav1.ManagedFieldsEntry{entry("helm", apply, `{"f:data":{"f:k":{}}}`), entry("helm", update, `{"f:data":{"f:u":{}}}`),
				entry("hpa", update, `{"f:spec":{"f:replicas":{}}}`), adopting},
			appliers: []string{"helm"},
			want: []metav1.ManagedFieldsEntry{entry("helm", update, `{"f:data":{"f:u":{}}}`), entry("hpa", update, `{"f:spec":{"f:replicas":{}}}`),
				entry("kubectl", apply, `{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:`+applyset.PartOfLabel+`":{}}}}`)},
		},
		"an applier not named keeps its entry": {
			entries:  []metav1.ManagedFieldsEntry{entry("argocd-controller", apply, `{"f:data":{"f:k":{}}}`), adopting},
			appliers: []string{"helm"},
			want:     []metav1.ManagedFieldsEntry{entry("argocd-controller", apply, `{"f:data":{"f:k":{}}}`), entry("kubectl", apply, label)},
		},
	} {
		got, err := handOver(tc.entries, tc.appliers)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: handOver (-want +got):\n%s", name, diff)
		}
	}
	if _, err := handOver([]metav1.ManagedFieldsEntry{entry("helm", apply, `{}`)}, []string{"helm"}); err == nil {
		t.Error("handed over without the adopting apply's entry")
	}
}

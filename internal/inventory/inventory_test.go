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

package inventory

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func cm(name string) apply.ObjectRef {
	return apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "ns", Name: name}
}

func member(name, uid string) applyv1alpha1.Member {
	return applyv1alpha1.Member{ObjectReference: applyv1alpha1.ObjectReference{Kind: "ConfigMap", Namespace: "ns", Name: name}, UID: uid}
}

// labelledBy is a listed object whose part-of label manager wrote with op.
func labelledBy(uid, manager string, op metav1.ManagedFieldsOperationType) *metav1.PartialObjectMetadata {
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid)}}
	if manager != "" {
		obj.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: manager, Operation: op, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:` + applyset.PartOfLabel + `":{}}}}`)}}
	}
	return obj
}

func TestProof(t *testing.T) {
	inv := FromStatus([]applyv1alpha1.Member{member("recorded", "uid-1"), member("legacy", "")})
	proof := inv.Proof("applyset-operator")
	tests := []struct {
		name string
		ref  apply.ObjectRef
		obj  *metav1.PartialObjectMetadata
		want bool
	}{
		{"the recorded UID", cm("recorded"), labelledBy("uid-1", "applyset-operator", metav1.ManagedFieldsOperationApply), true},
		{"the recorded UID, whoever wrote the label", cm("recorded"), labelledBy("uid-1", "", ""), true},
		{"another object of a recorded name", cm("recorded"), labelledBy("uid-2", "applyset-operator", metav1.ManagedFieldsOperationApply), false},
		{"an object never recorded, labelled under the operator's name", cm("forged"),
			labelledBy("uid-3", "applyset-operator", metav1.ManagedFieldsOperationApply), false},
		{"a legacy entry the operator applied", cm("legacy"), labelledBy("uid-4", "applyset-operator", metav1.ManagedFieldsOperationApply), true},
		{"a legacy entry labelled by an update under the operator's name", cm("legacy"),
			labelledBy("uid-4", "applyset-operator", metav1.ManagedFieldsOperationUpdate), false},
		{"a legacy entry another tool applied", cm("legacy"), labelledBy("uid-4", "kubectl", metav1.ManagedFieldsOperationApply), false},
		{"a legacy entry nobody is recorded to have labelled", cm("legacy"), labelledBy("uid-4", "", ""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := proof(tt.ref, tt.obj); got != tt.want {
				t.Errorf("proof = %v, want %v", got, tt.want)
			}
		})
	}
}

func applied(name, uid string) apply.Change {
	obj := &unstructured.Unstructured{}
	obj.SetUID(types.UID(uid))
	return apply.Change{Ref: cm(name), Action: apply.Created, Object: obj}
}

func TestNext(t *testing.T) {
	inv := FromStatus([]applyv1alpha1.Member{member("kept", "uid-k"), member("gone", "uid-g"), member("legacy", ""),
		member("pruned", "uid-p"), member("released", "uid-r")})
	namespace := &unstructured.Unstructured{}
	namespace.SetAPIVersion("v1")
	namespace.SetKind("Namespace")
	namespace.SetAnnotations(map[string]string{CascadeAnnotation: "allow"})
	nsRef := apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "Namespace"}, Name: "team"}
	nsApplied := apply.Change{Ref: nsRef, Action: apply.Created, Object: namespace.DeepCopy()}
	nsApplied.Object.SetUID("uid-ns")

	tests := []struct {
		name string
		seen Observed
		want map[string]string // name -> UID
	}{
		{
			name: "nothing listed: the record stays as it is",
			seen: Observed{Applied: []apply.Change{applied("new", "uid-n")}},
			want: map[string]string{"kept": "uid-k", "gone": "uid-g", "legacy": "", "pruned": "uid-p", "released": "uid-r", "new": "uid-n"},
		},
		{
			name: "listed: what the listing no longer found goes, legacy entries get their UID",
			seen: Observed{Listed: map[apply.ObjectRef]types.UID{cm("kept"): "uid-k", cm("legacy"): "uid-l", cm("pruned"): "uid-p",
				cm("released"): "uid-r"}},
			want: map[string]string{"kept": "uid-k", "legacy": "uid-l", "pruned": "uid-p", "released": "uid-r"},
		},
		{
			name: "pruned and disbanded members leave the record",
			seen: Observed{Listed: map[apply.ObjectRef]types.UID{cm("kept"): "uid-k", cm("pruned"): "uid-p", cm("released"): "uid-r"},
				Released: []apply.Change{{Ref: cm("pruned"), Action: apply.Pruned}, {Ref: cm("released"), Action: apply.Disbanded},
					{Ref: cm("kept"), Action: apply.Skipped}}},
			want: map[string]string{"kept": "uid-k"},
		},
		{
			name: "a pruned member still going, which a later delete waits for, stays until a listing misses it",
			seen: Observed{Listed: map[apply.ObjectRef]types.UID{cm("kept"): "uid-k", cm("pruned"): "uid-p"},
				Released: []apply.Change{{Ref: cm("pruned"), Action: apply.Pruned, Going: true}}},
			want: map[string]string{"kept": "uid-k", "pruned": "uid-p"},
		},
		{
			name: "an apply that had no answer is recorded by name, and a member recorded before keeps its UID",
			seen: Observed{Applied: []apply.Change{{Ref: cm("lost"), Action: apply.Failed, Unsure: true},
				{Ref: cm("kept"), Action: apply.Failed, Unsure: true}, {Ref: cm("refused"), Action: apply.Failed}}},
			want: map[string]string{"kept": "uid-k", "gone": "uid-g", "legacy": "", "pruned": "uid-p", "released": "uid-r", "lost": ""},
		},
		{
			name: "an apply records the UID it created, and nothing for what it did not write",
			seen: Observed{Listed: map[apply.ObjectRef]types.UID{},
				Applied: []apply.Change{applied("kept", "uid-k2"), {Ref: cm("failed"), Action: apply.Failed}}},
			want: map[string]string{"kept": "uid-k2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := inv.Next(tt.seen)
			got := map[string]string{}
			for _, e := range next.Entries() {
				got[e.Ref.Name] = string(e.UID)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("members = %v, want %v", got, tt.want)
			}
			for name, uid := range tt.want {
				if g, ok := got[name]; !ok || g != uid {
					t.Errorf("members = %v, want %v", got, tt.want)
				}
			}
		})
	}

	t.Run("a declared namespace's cascade annotation is recorded, the live one's is not", func(t *testing.T) {
		declared := map[apply.ObjectRef]*unstructured.Unstructured{nsRef: namespace}
		next := FromStatus(nil).Next(Observed{Applied: []apply.Change{nsApplied}, Declared: declared})
		if e, _ := next.Get(nsRef); !e.Cascade || !next.Cascade(nsRef) {
			t.Errorf("entry = %+v, want cascade", e)
		}
		if next.Cascade(apply.ObjectRef{GroupKind: nsRef.GroupKind, Name: "not-a-member"}) {
			t.Error("a namespace the set does not record may cascade")
		}
		plain := namespace.DeepCopy()
		plain.SetAnnotations(nil)
		next = FromStatus(nil).Next(Observed{Applied: []apply.Change{nsApplied}, Declared: map[apply.ObjectRef]*unstructured.Unstructured{nsRef: plain}})
		if e, _ := next.Get(nsRef); e.Cascade || next.Cascade(nsRef) {
			t.Errorf("entry = %+v: the live object's annotation counted", e)
		}
	})
}

func TestStatusRoundTrip(t *testing.T) {
	in := []applyv1alpha1.Member{member("b", "uid-b"), member("a", "uid-a")}
	in[0].Cascade = ptr.To(true)
	if refs := FromStatus(in).Refs(); len(refs) != 2 || refs[0] != cm("a") || refs[1] != cm("b") {
		t.Errorf("refs = %v, want a, b", refs)
	}
	out := FromStatus(in).Status()
	if len(out) != 2 || out[0].Name != "a" || out[1].Name != "b" || !ptr.Deref(out[1].Cascade, false) || out[0].Cascade != nil {
		t.Errorf("status = %+v", out)
	}
}

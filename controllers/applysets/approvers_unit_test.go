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
	"context"
	"encoding/json"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

const (
	digestA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	digestB = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// setJSON is a set approving plan ("" for none), annotated as by says
// (nil for no annotation).
func setJSON(plan string, by *string) []byte {
	obj := map[string]any{"apiVersion": "apply.applyset.dev/v1alpha1", "kind": "ApplySet",
		"metadata": map[string]any{"name": "s", "namespace": "n"}, "spec": map[string]any{}}
	if plan != "" {
		obj["spec"] = map[string]any{"approvedPlan": plan}
	}
	if by != nil {
		obj["metadata"].(map[string]any)["annotations"] = map[string]any{applyv1alpha1.ApprovedByAnnotation: *by}
	}
	data, _ := json.Marshal(obj)
	return data
}

// admitted returns the approved-by annotation raw has once the response's
// patch is applied.
func admitted(t *testing.T, raw []byte, resp admission.Response) (string, bool) {
	t.Helper()
	if !resp.Allowed {
		t.Fatalf("refused: %v", resp.Result)
	}
	obj := map[string]any{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	annotations, _ := obj["metadata"].(map[string]any)["annotations"].(map[string]any)
	by, ok := annotations[applyv1alpha1.ApprovedByAnnotation].(string)
	for _, p := range resp.Patches {
		switch p.Path {
		case "/metadata/annotations/" + strings.ReplaceAll(applyv1alpha1.ApprovedByAnnotation, "/", "~1"):
			by, _ = p.Value.(string)
			ok = p.Operation != "remove"
		case "/metadata/annotations":
			m, _ := p.Value.(map[string]any)
			by, ok = m[applyv1alpha1.ApprovedByAnnotation].(string)
		default:
			t.Fatalf("unexpected patch %v", p)
		}
	}
	return by, ok
}

func TestApproversHandle(t *testing.T) {
	byAlice, byBob, byAliceB := digestA+" alice", digestA+" bob", digestB+" alice"
	for _, tc := range []struct {
		name      string
		create    bool
		old, next []byte
		want      *string
	}{
		{"a create that approves names its digest and user", true, nil, setJSON(digestA, &byBob), &byAlice},
		{"a create that approves nothing names no one", true, nil, setJSON("", &byBob), nil},
		{"an approval names its user, over what the request wrote", false, setJSON("", nil), setJSON(digestA, &byBob), &byAlice},
		{"a new approval names its digest and user", false, setJSON(digestA, &byBob), setJSON(digestB, &byBob), &byAliceB},
		{"a write of the annotation alone puts back the stored one", false, setJSON(digestA, &byBob), setJSON(digestA, &byAlice), &byBob},
		{"a removal of the annotation alone puts it back", false, setJSON(digestA, &byBob), setJSON(digestA, nil), &byBob},
		{"an annotation written where none was is taken out", false, setJSON("", nil), setJSON("", &byBob), nil},
		{"withdrawing an approval keeps the name", false, setJSON(digestA, &byBob), setJSON("", &byBob), &byBob},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Update,
				UserInfo: authenticationv1.UserInfo{Username: "alice"}, Object: runtime.RawExtension{Raw: tc.next},
				OldObject: runtime.RawExtension{Raw: tc.old}}}
			if tc.create {
				req.Operation = admissionv1.Create
			}
			by, ok := admitted(t, tc.next, approvers{}.Handle(context.Background(), req))
			if want := ptr.Deref(tc.want, ""); ok != (tc.want != nil) || by != want {
				t.Fatalf("approved-by = %q (present %v), want %q (present %v)", by, ok, want, tc.want != nil)
			}
		})
	}
}

func TestApproverOf(t *testing.T) {
	for _, tc := range []struct {
		annotation, digest, want string
	}{
		{digestA + " alice", digestA, "alice"},
		{digestA + " alice@example.com with spaces", digestA, "alice@example.com with spaces"},
		{digestA + " alice", digestB, ""},
		{"alice", digestA, ""},
		{digestA + " alice", "", ""},
		{"", digestA, ""},
	} {
		set := &applyv1alpha1.ApplySet{}
		set.Annotations = map[string]string{applyv1alpha1.ApprovedByAnnotation: tc.annotation}
		if got := approverOf(set, tc.digest); got != tc.want {
			t.Errorf("approverOf(%q, %q) = %q, want %q", tc.annotation, tc.digest, got, tc.want)
		}
	}
}

func TestApproversRefuseUnboundedNames(t *testing.T) {
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Create,
		UserInfo: authenticationv1.UserInfo{Username: strings.Repeat("u", maxApprover+1)}, Object: runtime.RawExtension{Raw: setJSON(digestA, nil)}}}
	resp := approvers{}.Handle(context.Background(), req)
	if resp.Allowed || !strings.Contains(resp.Result.Message, "at most 512") {
		t.Fatalf("an approver's name of %d bytes was %v: %v", maxApprover+1, resp.Allowed, resp.Result)
	}
}

// FuzzApproversHandle: whatever the request holds, the webhook answers
// without panicking, and an object it admits names the request's user, the
// stored approver or no one.
func FuzzApproversHandle(f *testing.F) {
	bob := "bob"
	f.Add(setJSON("", &bob), setJSON(digestA, &bob))
	f.Add(setJSON(digestA, &bob), setJSON(digestA, nil))
	f.Add(setJSON(digestA, nil), []byte(`{"metadata":{"annotations":null},"spec":null}`))
	f.Fuzz(func(t *testing.T, old, next []byte) {
		req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Update,
			UserInfo: authenticationv1.UserInfo{Username: "alice"}, Object: runtime.RawExtension{Raw: next},
			OldObject: runtime.RawExtension{Raw: old}}}
		resp := approvers{}.Handle(context.Background(), req)
		if !resp.Allowed || len(resp.Patches) == 0 {
			return
		}
		for _, p := range resp.Patches {
			if v, ok := p.Value.(string); ok && strings.Contains(p.Path, "approved-by") && !strings.HasSuffix(v, " alice") && v != "bob" {
				t.Fatalf("patch %v names %q", p, v)
			}
		}
	})
}

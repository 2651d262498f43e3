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

package parents

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// Another tool's set keeps no record: a member is "applied" when the tool's
// own apply wrote its label, "label only" when the verdict found no apply
// that did.
func TestProofsOfAnotherToolsSet(t *testing.T) {
	ref := membership.ParentRef{Type: membership.ResourceType{GroupKind: schema.GroupKind{Kind: "ConfigMap"}}, Namespace: "ns", Name: "parent"}
	member := func(uid string) membership.Member {
		return membership.Member{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "ns", Name: uid, UID: types.UID(uid)}
	}
	v := membership.Verdict{Members: []membership.Member{member("a"), member("b"), member("c")}, Unvouched: []membership.Member{member("b")}}
	proofOf, err := proofsOf(context.Background(), nil, ref, v)
	if err != nil {
		t.Fatal(err)
	}
	for uid, want := range map[string]string{"a": proofApplied, "b": proofLabel, "c": proofApplied} {
		if got := proofOf(member(uid)); got != want {
			t.Errorf("member %s: proof %q, want %q", uid, got, want)
		}
	}
}

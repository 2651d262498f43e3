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

package replicas

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestOwnClaim(t *testing.T) {
	version := func(name, rv string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	claimed := func() *Gate {
		g := &Gate{}
		g.claims.Store(types.NamespacedName{Namespace: "ns", Name: "set"}, claim{from: "10", to: "11"})
		return g
	}
	tests := []struct {
		name     string
		old, new *metav1.PartialObjectMetadata
		want     bool
	}{
		{"the update the claim made", version("set", "10"), version("set", "11"), true},
		{"an update spanning the claim and an earlier change (a relist)", version("set", "9"), version("set", "11"), false},
		{"a later update", version("set", "11"), version("set", "12"), false},
		{"another set at the same versions", version("other", "10"), version("other", "11"), false},
	}
	for _, tt := range tests {
		if got := claimed().ownClaim(tt.old, tt.new); got != tt.want {
			t.Errorf("%s: ownClaim = %v, want %v", tt.name, got, tt.want)
		}
	}

	g := claimed()
	g.ownClaim(version("set", "10"), version("set", "11"))
	if g.ownClaim(version("set", "10"), version("set", "11")) {
		t.Error("the claim's update was dropped twice")
	}
}

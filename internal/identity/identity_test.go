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

package identity

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestReleasesMembersOf(t *testing.T) {
	key := applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: "shop", Name: "web"}
	tests := []struct {
		name    string
		parent  applyset.Parent
		release bool
	}{
		{"the operator's set", applyset.Parent{Key: key, ID: key.ID(), Tooling: Tooling("v0.1.0")}, true},
		{"before its first reconcile wrote the tooling", applyset.Parent{Key: key, ID: key.ID()}, true},
		{"another tool's contract", applyset.Parent{Key: key, ID: key.ID(), Tooling: applyset.Tooling{Name: "kubectl", Version: "v1.37.1"}}, false},
		{"an ID that is not its own", applyset.Parent{Key: key, ID: "applyset-copied-v1", Tooling: Tooling("v0.1.0")}, false},
		{"no ID", applyset.Parent{Key: key, Tooling: Tooling("v0.1.0")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReleasesMembersOf(tt.parent); got != tt.release {
				t.Errorf("ReleasesMembersOf = %v, want %v", got, tt.release)
			}
		})
	}
}

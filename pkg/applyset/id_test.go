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

package applyset

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The IDs below were computed by kubectl v1.37.1's own ApplySet code
// (k8s.io/kubectl/pkg/cmd/apply, ApplySet.ID) for the same parents; the
// interop suite checks the same against the kubectl binary.
func TestIDMatchesKubectl(t *testing.T) {
	tests := []struct {
		name string
		key  ParentKey
		want string
	}{
		{
			name: "core-group Secret, kubectl's default parent",
			key:  ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "default", Name: "my-set"},
			want: "applyset-kdySOVBWs584aaOTmku9Ul1xDuN7LXBjs-R96jQcisk-v1",
		},
		{
			name: "core-group ConfigMap",
			key:  ParentKey{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "team-a", Name: "web"},
			want: "applyset-E1ULavSvgsBLEtzOfRzkmdy1haQrcT0PYpTkAKjtE74-v1",
		},
		{
			name: "namespaced custom resource",
			key:  ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: "team-a", Name: "web"},
			want: "applyset-rCezbhiQC3LGx6A7wdleORUfv01hlaU4r4QVgkW0VyQ-v1",
		},
		{
			name: "cluster-scoped custom resource: the namespace stays empty between the dots",
			key:  ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ClusterApplySet"}, Name: "platform"},
			want: "applyset-3RG4PjXgVh96IEsu0VQahhGyH6I9uCeMugcXgxXmqHo-v1",
		},
		{
			name: "a name with dots is hashed as written",
			key:  ParentKey{GroupKind: schema.GroupKind{Group: "example.com", Kind: "Widget"}, Namespace: "c", Name: "a.b"},
			want: "applyset-9jQRKEql3EUKyEliHLv0IOrSUN0Tc-HjQ9YybS6M06s-v1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.key.ID(); got != tt.want {
				t.Errorf("ID() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestIDIsAValidLabelValue(t *testing.T) {
	id := ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "x", Name: "y"}.ID()
	if len(id) > 63 || !labelValuePattern.MatchString(id) {
		t.Errorf("ID %q is not a valid label value", id)
	}
}

func BenchmarkID(b *testing.B) {
	key := ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: "team-a", Name: "web"}
	for b.Loop() {
		_ = key.ID()
	}
}

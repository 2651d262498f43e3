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

package cli

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/membership"
)

func TestParentName(t *testing.T) {
	secret := membership.ParentRef{Type: membership.ResourceType{GroupKind: schema.GroupKind{Kind: "Secret"}}, Namespace: "ns", Name: "web"}
	custom := membership.ParentRef{Type: membership.ResourceType{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}}, Name: "web"}
	if got := ParentName(secret); got != "secret/web" {
		t.Errorf("parentName(Secret) = %q", got)
	}
	if got := ParentName(custom); got != "applyset.apply.applyset.dev/web" {
		t.Errorf("parentName(ApplySet) = %q", got)
	}
}

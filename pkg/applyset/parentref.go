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
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SecretsResource is the parent resource kubectl assumes when --applyset gives a bare name.
var SecretsResource = schema.GroupResource{Resource: "secrets"}

// ParentRef is a parent as kubectl's --applyset flag names it: a resource (plural,
// singular or short name, as kubectl resolves them), its group, and a name.
type ParentRef struct {
	Resource schema.GroupResource
	Name     string
}

// ParseParentRef reads kubectl's --applyset form, [RESOURCE][.GROUP]/NAME; a bare
// NAME is a Secret.
func ParseParentRef(value string) (ParentRef, error) {
	ref := ParentRef{Resource: SecretsResource, Name: value}
	if resource, name, ok := strings.Cut(value, "/"); ok {
		ref = ParentRef{Resource: schema.ParseGroupResource(resource), Name: name}
		if !resourcePattern.MatchString(ref.Resource.Resource) ||
			(ref.Resource.Group != "" && !subdomainPattern.MatchString(ref.Resource.Group)) {
			return ParentRef{}, fmt.Errorf("%q does not name a resource as RESOURCE[.GROUP]/NAME", value)
		}
	}
	if ref.Name == "" {
		return ParentRef{}, fmt.Errorf("%q names no parent: the name is empty", value)
	}
	if len(ref.Name) > 253 || !subdomainPattern.MatchString(ref.Name) {
		return ParentRef{}, fmt.Errorf("%q: %q is not an object name", value, ref.Name)
	}
	return ref, nil
}

// String writes the reference in the form kubectl's --applyset flag takes.
func (r ParentRef) String() string {
	return r.Resource.String() + "/" + r.Name
}

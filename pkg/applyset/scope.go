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
	"k8s.io/apimachinery/pkg/util/sets"
)

// Scope is where a parent may hold members (KEP-3659 "ApplySet scopes"):
// cluster-scoped objects always; namespaced objects in the parent's own
// namespace, if it has one, and in its additional namespaces.
type Scope struct {
	// Namespace is the parent's namespace; empty for a cluster-scoped parent.
	Namespace string
	// AdditionalNamespaces come from the additional-namespaces annotation.
	AdditionalNamespaces sets.Set[string]
}

// Contains reports whether an object in namespace (empty for cluster-scoped
// objects) lies in the scope.
func (s Scope) Contains(namespace string) bool {
	if namespace == "" || namespace == s.Namespace {
		return true
	}
	return s.AdditionalNamespaces.Has(namespace)
}

// Namespaces lists the namespaces of the scope, sorted.
func (s Scope) Namespaces() []string {
	all := s.AdditionalNamespaces.Clone()
	if s.Namespace != "" {
		all.Insert(s.Namespace)
	}
	return sets.List(all)
}

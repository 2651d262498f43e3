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
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ParentKey identifies a parent object: its group, kind, namespace and name
// (the KEP's GKNN). Namespace is empty for a cluster-scoped parent.
type ParentKey struct {
	GroupKind schema.GroupKind
	Namespace string
	Name      string
}

// ID returns the set's ID for the parent, byte for byte as kubectl computes it:
// "applyset-" + base64url(sha256("<name>.<namespace>.<Kind>.<group>")) + "-v1",
// without padding; an empty namespace or group stays empty between the dots.
// The prefix and suffix make the value a valid label value.
func (k ParentKey) ID() string {
	sum := sha256.Sum256([]byte(strings.Join([]string{k.Name, k.Namespace, k.GroupKind.Kind, k.GroupKind.Group}, ".")))
	return "applyset-" + base64.RawURLEncoding.EncodeToString(sum[:]) + "-v1"
}

// String names the parent for people: Kind.group namespace/name.
func (k ParentKey) String() string {
	return ObjectName(k.GroupKind, k.Namespace, k.Name)
}

// ObjectName names an object for people and messages: Kind.group
// namespace/name, or Kind.group name when it has no namespace (Kind alone for
// the core group).
func ObjectName(gk schema.GroupKind, namespace, name string) string {
	if namespace == "" {
		return gk.String() + " " + name
	}
	return gk.String() + " " + namespace + "/" + name
}

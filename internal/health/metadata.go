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

package health

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

const rbac = "rbac.authorization.k8s.io"

// statusless are built-in kinds whose API has no status: the API server
// drops one sent with them, so kstatus finds nothing but their metadata to
// judge (Current, or Terminating once deleted).
var statusless = sets.New(
	schema.GroupKind{Kind: "ConfigMap"},
	schema.GroupKind{Kind: "Secret"},
	schema.GroupKind{Kind: "ServiceAccount"},
	schema.GroupKind{Kind: "LimitRange"},
	schema.GroupKind{Kind: "PodTemplate"},
	schema.GroupKind{Group: rbac, Kind: "Role"},
	schema.GroupKind{Group: rbac, Kind: "ClusterRole"},
	schema.GroupKind{Group: rbac, Kind: "RoleBinding"},
	schema.GroupKind{Group: rbac, Kind: "ClusterRoleBinding"},
	schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"},
	schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"},
	schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"},
	schema.GroupKind{Group: "node.k8s.io", Kind: "RuntimeClass"},
)

// JudgesByMetadata reports whether Judge says the same of an object of kind
// gk from its metadata alone (its type, name, namespace and
// deletionTimestamp) as from all of it: the kind's API has no status and c
// has no check of its own for it. Whoever judges many such objects can then
// judge them from a metadata list, without reading them whole.
func (c *Checker) JudgesByMetadata(gk schema.GroupKind) bool {
	if _, ok := c.checks[gk]; ok {
		return false
	}
	return statusless.Has(gk)
}

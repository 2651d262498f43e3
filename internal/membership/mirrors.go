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

package membership

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

var (
	serviceKind       = schema.GroupKind{Kind: "Service"}
	endpointsKind     = schema.GroupKind{Kind: "Endpoints"}
	endpointSliceKind = schema.GroupKind{Group: "discovery.k8s.io", Kind: "EndpointSlice"}
)

// splitMirrors takes out of objects the copies Kubernetes keeps of a member
// Service: its endpoint controllers copy the Service's labels, the part-of
// label among them, onto the Endpoints of the Service's name and onto the
// EndpointSlices the Service controls. No tool applied them, so they are not
// members: counting them made every set with a Service report kinds its hint
// omits and members another object owns. A copy is recognised only when its
// label was not applied by the set's tooling and it belongs to a Service that
// is itself among the objects; anything else stays for the checks to judge.
func splitMirrors(objects []Member, vouched func(Member) bool) (members, mirrors []Member) {
	services := sets.New[types.UID]()
	serviceNames := sets.New[types.NamespacedName]()
	for _, m := range objects {
		if m.GroupKind == serviceKind {
			services.Insert(m.UID)
			serviceNames.Insert(types.NamespacedName{Namespace: m.Namespace, Name: m.Name})
		}
	}
	if services.Len() == 0 {
		return objects, nil
	}
	for _, m := range objects {
		if !vouched(m) && mirrorsService(m, services, serviceNames) {
			mirrors = append(mirrors, m)
		} else {
			members = append(members, m)
		}
	}
	return members, mirrors
}

// mirrorsService reports whether m is the Endpoints or an EndpointSlice of
// one of the Services.
func mirrorsService(m Member, services sets.Set[types.UID], serviceNames sets.Set[types.NamespacedName]) bool {
	switch m.GroupKind {
	case endpointsKind:
		return serviceNames.Has(types.NamespacedName{Namespace: m.Namespace, Name: m.Name})
	case endpointSliceKind:
		return slices.ContainsFunc(m.OwnerReferences, func(ref metav1.OwnerReference) bool {
			return ref.Kind == serviceKind.Kind && ref.APIVersion == "v1" && ref.Controller != nil && *ref.Controller &&
				services.Has(ref.UID)
		})
	}
	return false
}

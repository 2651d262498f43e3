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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestSplitMirrors(t *testing.T) {
	service := Member{GroupKind: serviceKind, Namespace: "shop", Name: "web", UID: "svc-uid", PartOfAppliedBy: []string{"kubectl"}}
	copied := func(gk schema.GroupKind, namespace, name string, owners ...metav1.OwnerReference) Member {
		return Member{GroupKind: gk, Namespace: namespace, Name: name, UID: types.UID(name + "-uid"), OwnerReferences: owners}
	}
	controlledBy := func(uid types.UID) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: "web", UID: uid, Controller: ptr.To(true)}
	}
	applied := func(m Member) Member {
		m.PartOfAppliedBy = []string{"kubectl"}
		return m
	}
	tests := []struct {
		name        string
		objects     []Member
		wantMirrors []string
	}{
		{"the Endpoints and EndpointSlice of a member Service", []Member{service,
			copied(endpointsKind, "shop", "web"), copied(endpointSliceKind, "shop", "web-x7k2p", controlledBy("svc-uid"))},
			[]string{"web", "web-x7k2p"}},
		{"without the Service among the objects, nothing is a copy", []Member{
			copied(endpointsKind, "shop", "web"), copied(endpointSliceKind, "shop", "web-x7k2p", controlledBy("svc-uid"))}, nil},
		{"Endpoints of another name or namespace", []Member{service,
			copied(endpointsKind, "shop", "api"), copied(endpointsKind, "other", "web")}, nil},
		{"an EndpointSlice of another Service", []Member{service,
			copied(endpointSliceKind, "shop", "api-1", controlledBy("other-uid"))}, nil},
		{"an EndpointSlice the Service owns but does not control", []Member{service,
			copied(endpointSliceKind, "shop", "web-1", metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: "web", UID: "svc-uid"})}, nil},
		{"an EndpointSlice whose owner only shares the Service's UID", []Member{service,
			copied(endpointSliceKind, "shop", "web-1", metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Service", UID: "svc-uid", Controller: ptr.To(true)})}, nil},
		{"Endpoints the set's tooling applied stay a member", []Member{service, applied(copied(endpointsKind, "shop", "web"))}, nil},
		{"a ConfigMap of the Service's name", []Member{service, copied(schema.GroupKind{Kind: "ConfigMap"}, "shop", "web")}, nil},
	}
	vouched := func(m Member) bool { return slices.Contains(m.PartOfAppliedBy, "kubectl") }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			members, mirrors := splitMirrors(tt.objects, vouched)
			var got []string
			for _, m := range mirrors {
				got = append(got, m.Name)
			}
			if !slices.Equal(got, tt.wantMirrors) {
				t.Errorf("mirrors = %v, want %v", got, tt.wantMirrors)
			}
			if len(members)+len(mirrors) != len(tt.objects) {
				t.Errorf("%d members and %d mirrors of %d objects", len(members), len(mirrors), len(tt.objects))
			}
		})
	}
}

// TestVerifyLeavesMirrorsOut checks the findings a set with a Service had on
// a cluster whose endpoint controllers copy the Service's labels.
func TestVerifyLeavesMirrorsOut(t *testing.T) {
	key := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "shop", Name: "web"}
	parent := applyset.ParseParent(key, map[string]string{applyset.IDLabel: key.ID()},
		map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: "Service"})
	service := Member{GroupKind: serviceKind, Namespace: "shop", Name: "web", UID: "svc-uid", PartOfAppliedBy: []string{"kubectl"}}
	endpoints := Member{GroupKind: endpointsKind, Namespace: "shop", Name: "web", UID: "ep-uid"}
	slice := Member{GroupKind: endpointSliceKind, Namespace: "shop", Name: "web-x7k2p", UID: "eps-uid",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "web", UID: "svc-uid", Controller: ptr.To(true)}}}

	v := Verify(parent, Facts{Members: []Member{service, endpoints, slice}, Appliers: sets.New("kubectl")})
	if !v.Clean() || len(v.Members) != 1 || len(v.Mirrors) != 2 || len(v.Unvouched) != 0 || v.NeedsRepair() {
		t.Errorf("Verify = %d members, %d mirrors, %d unvouched, problems %v, repair %v; want the Service alone, clean",
			len(v.Members), len(v.Mirrors), len(v.Unvouched), v.Problems, v.NeedsRepair())
	}
}

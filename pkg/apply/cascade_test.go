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

package apply

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// inNS is an occupant of the namespace "team" of kind gk named name, with
// uid name's and owned by the UIDs given.
func inNS(gk schema.GroupKind, name string, owners ...string) occupant {
	o := occupant{ref: ObjectRef{GroupKind: gk, Namespace: "team", Name: name}, uid: types.UID(name)}
	for _, owner := range owners {
		o.owners = append(o.owners, types.UID(owner))
	}
	return o
}

// deleting is a member the prune deletes, its UID its name.
func deleting(gk schema.GroupKind, namespace, name string) member {
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID(name)}}
	return member{ref: ObjectRef{GroupKind: gk, Namespace: namespace, Name: name}, obj: obj}
}

var (
	deploymentKind = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	replicaSetKind = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	podKind        = schema.GroupKind{Kind: "Pod"}
	sliceKind      = schema.GroupKind{Group: "discovery.k8s.io", Kind: "EndpointSlice"}
	pvcKind        = schema.GroupKind{Kind: "PersistentVolumeClaim"}
)

func TestRemaining(t *testing.T) {
	members := goingOf([]member{
		deleting(namespaceKind, "", "team"),
		deleting(deploymentKind, "team", "web"),
		deleting(serviceKind, "team", "web-svc"),
		deleting(serviceAccountKind, "team", "runner"),
	})
	tokenOf := func(name, account string) occupant {
		o := inNS(secretKind, name)
		o.serviceAccount = account
		return o
	}
	terminating := inNS(configMapKind, "on-its-way")
	terminating.deleting = true
	tests := []struct {
		name      string
		occupants []occupant
		want      []string
	}{
		{name: "empty", want: nil},
		{name: "the members themselves", occupants: []occupant{inNS(deploymentKind, "web"), inNS(serviceKind, "web-svc")}},
		{name: "what members own, transitively", occupants: []occupant{
			inNS(replicaSetKind, "web-1", "web"), inNS(podKind, "web-1-a", "web-1"), inNS(podKind, "web-1-b", "web-1"),
			inNS(sliceKind, "web-svc-x", "web-svc"),
		}},
		{name: "owned also by an object that stays", occupants: []occupant{
			inNS(configMapKind, "theirs"), inNS(podKind, "shared", "web", "theirs"),
		}, want: []string{"ConfigMap team/theirs", "Pod team/shared"}},
		{name: "owned by what stays, and what that owns", occupants: []occupant{
			inNS(deploymentKind, "theirs"), inNS(replicaSetKind, "theirs-1", "theirs"), inNS(podKind, "theirs-1-a", "theirs-1"),
		}, want: []string{"Deployment.apps team/theirs", "Pod team/theirs-1-a", "ReplicaSet.apps team/theirs-1"}},
		{name: "an owner that is not there", occupants: []occupant{inNS(podKind, "orphan", "long-gone")},
			want: []string{"Pod team/orphan"}},
		{name: "what Kubernetes puts in every namespace", occupants: []occupant{
			inNS(serviceAccountKind, "default"), inNS(configMapKind, "kube-root-ca.crt"), tokenOf("default-token-x", "default"),
		}},
		{name: "what Kubernetes derives from members by name", occupants: []occupant{
			inNS(endpointsKind, "web-svc"), tokenOf("runner-token", "runner"),
		}},
		{name: "the same names for what is not a member's", occupants: []occupant{
			inNS(endpointsKind, "manual"), tokenOf("theirs-token", "theirs"), inNS(serviceAccountKind, "theirs"),
			inNS(secretKind, "default"), inNS(configMapKind, "default"),
		}, want: []string{"ConfigMap team/default", "Endpoints team/manual", "Secret team/default", "Secret team/theirs-token",
			"ServiceAccount team/theirs"}},
		{name: "a claim a StatefulSet's template made", occupants: []occupant{inNS(pvcKind, "data-db-0")},
			want: []string{"PersistentVolumeClaim team/data-db-0"}},
		{name: "already being deleted", occupants: []occupant{terminating}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, o := range remaining(tt.occupants, members) {
				got = append(got, o.ref.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("remaining = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRemainingClosureIsOrderFree(t *testing.T) {
	// A chain listed leaf first needs more than one pass.
	chain := []occupant{inNS(podKind, "d", "c"), inNS(podKind, "c", "b"), inNS(podKind, "b", "a"), inNS(podKind, "a", "web")}
	if got := remaining(chain, goingOf([]member{deleting(deploymentKind, "team", "web")})); len(got) != 0 {
		t.Fatalf("a chain owned by a member is left: %v", got)
	}
	if got := remaining(chain, goingOf(nil)); len(got) != len(chain) {
		t.Fatalf("with nothing deleted, %d of %d remain", len(got), len(chain))
	}
}

func TestTakenWithNamespace(t *testing.T) {
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	tests := []struct {
		group string
		r     metav1.APIResource
		want  bool
	}{
		{group: "", r: metav1.APIResource{Name: "configmaps", Verbs: all}, want: true},
		{group: "example.com", r: metav1.APIResource{Name: "widgets", Verbs: all}, want: true},
		{group: "", r: metav1.APIResource{Name: "events", Verbs: all}, want: false},
		{group: "events.k8s.io", r: metav1.APIResource{Name: "events", Verbs: all}, want: false},
		{group: "example.com", r: metav1.APIResource{Name: "events", Verbs: all}, want: true},
		{group: "metrics.k8s.io", r: metav1.APIResource{Name: "pods", Verbs: []string{"get", "list"}}, want: false},
		{group: "", r: metav1.APIResource{Name: "bindings", Verbs: []string{"create"}}, want: false},
		{group: "authorization.k8s.io", r: metav1.APIResource{Name: "localsubjectaccessreviews", Verbs: []string{"create"}}, want: false},
	}
	for _, tt := range tests {
		if got := takenWithNamespace(tt.group, tt.r); got != tt.want {
			t.Errorf("takenWithNamespace(%q, %s) = %v, want %v", tt.group, tt.r.Name, got, tt.want)
		}
	}
}

func TestOccupiedReason(t *testing.T) {
	if got := occupiedReason(nil, nil); got != "" {
		t.Fatalf("an empty namespace is kept: %q", got)
	}
	five := []occupant{inNS(configMapKind, "a"), inNS(configMapKind, "b"), inNS(secretKind, "c"), inNS(podKind, "d"), inNS(podKind, "e")}
	got := occupiedReason(five, []string{"leases.coordination.k8s.io (forbidden)"})
	for _, want := range []string{"5 objects", "ConfigMap a, ConfigMap b, Secret c and 2 more", CascadeAnnotation + ": allow"} {
		if !strings.Contains(got, want) {
			t.Errorf("reason %q does not say %q", got, want)
		}
	}
	got = occupiedReason(nil, []string{"leases.coordination.k8s.io (forbidden)"})
	if !strings.Contains(got, "cannot list leases.coordination.k8s.io (forbidden)") {
		t.Errorf("reason %q does not name the type it cannot list", got)
	}
}

func TestOccupantOf(t *testing.T) {
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "t", UID: "u",
		Annotations:     map[string]string{serviceAccountNameAnnotation: "runner"},
		OwnerReferences: []metav1.OwnerReference{{UID: "o1"}, {UID: "o2"}}}}
	if o := occupantOf(secretKind, obj); o.serviceAccount != "runner" || !slices.Equal(o.owners, []types.UID{"o1", "o2"}) || o.deleting {
		t.Fatalf("occupantOf(Secret) = %+v", o)
	}
	// Only a Secret is a token for an account; the annotation elsewhere is anyone's.
	if o := occupantOf(configMapKind, obj); o.serviceAccount != "" {
		t.Fatalf("a ConfigMap read as a token for %q", o.serviceAccount)
	}
}

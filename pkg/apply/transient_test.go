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
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// authorizerForbidden is a Forbidden answer worded as the API server's
// authorization filter words it.
func authorizerForbidden(gr schema.GroupResource, name, detail string) error {
	return apierrors.NewForbidden(gr, name, errors.New(detail))
}

func TestRefusedPermission(t *testing.T) {
	configMaps := schema.GroupResource{Resource: "configmaps"}
	roles := schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}
	tests := []struct {
		name string
		err  error
		want *Permission
	}{
		{"namespaced", authorizerForbidden(configMaps, "a",
			`User "system:serviceaccount:team:deployer" cannot patch resource "configmaps" in API group "" in the namespace "team"`),
			&Permission{Verb: "patch", Resource: configMaps, Namespace: "team"}},
		{"cluster-scoped", authorizerForbidden(roles, "r",
			`User "alice" cannot delete resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`),
			&Permission{Verb: "delete", Resource: roles}},
		{"with the authorizer's reason", authorizerForbidden(configMaps, "a",
			`User "bob" cannot create resource "configmaps" in API group "" in the namespace "x": RBAC: role.rbac.authorization.k8s.io "gone" not found`),
			&Permission{Verb: "create", Resource: configMaps, Namespace: "x"}},
		{"a subresource names its resource", authorizerForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "d",
			`User "bob" cannot patch resource "deployments/status" in API group "apps" in the namespace "x"`),
			&Permission{Verb: "patch", Resource: schema.GroupResource{Group: "apps", Resource: "deployments"}, Namespace: "x"}},
		{"an admission webhook's denial", authorizerForbidden(configMaps, "a",
			`admission webhook "policy.example.com" denied the request: User "bob" cannot patch resource "configmaps" in API group "" in the namespace "x"`),
			nil},
		{"an admission policy's denial", authorizerForbidden(configMaps, "a",
			`ValidatingAdmissionPolicy 'no-refused' with binding 'no-refused' denied request: refused`),
			nil},
		{"a non-resource path", authorizerForbidden(schema.GroupResource{}, "", `User "bob" cannot get path "/healthz"`), nil},
		{"not Forbidden", apierrors.NewNotFound(configMaps, "a"), nil},
		{"no error", nil, nil},
		{"wrapped", fmt.Errorf("applying: %w", authorizerForbidden(configMaps, "a",
			`User "u" cannot patch resource "configmaps" in API group "" in the namespace "n"`)),
			&Permission{Verb: "patch", Resource: configMaps, Namespace: "n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := refusedPermission(tt.err)
			if (tt.want != nil) != ok {
				t.Fatalf("refusedPermission(%v) found %v, want %v", tt.err, ok, tt.want != nil)
			}
			if ok && got != *tt.want {
				t.Errorf("refusedPermission(%v) = %+v, want %+v", tt.err, got, *tt.want)
			}
		})
	}
}

// FuzzRefusedPermission: whatever a Forbidden answer says, the parser ends,
// and a permission it finds is the message's own words.
func FuzzRefusedPermission(f *testing.F) {
	f.Add("patch", "configmaps", "", "team")
	f.Add("delete", "clusterroles", "rbac.authorization.k8s.io", "")
	f.Add("get", `a" in API group "b`, "c", "d")
	f.Fuzz(func(t *testing.T, verb, resource, group, namespace string) {
		where := " at the cluster scope"
		if namespace != "" {
			where = fmt.Sprintf(" in the namespace %q", namespace)
		}
		detail := fmt.Sprintf("User %q cannot %s resource %q in API group %q%s", "u", verb, resource, group, where)
		p, ok := refusedPermission(authorizerForbidden(schema.GroupResource{Group: group, Resource: resource}, "x", detail))
		if !ok {
			return
		}
		if said := " cannot " + p.Verb + ` resource "` + p.Resource.Resource; !strings.Contains(detail, said) {
			t.Errorf("found %+v, which %q does not say", p, detail)
		}
	})
}

func TestAdmissionLag(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the plugin's refusal", admissionLagError("example.com/v1, Kind=Widget"), true},
		{"wrapped", fmt.Errorf("applying: %w", admissionLagError("example.com/v1, Kind=Widget")), true},
		{"another 503", apierrors.NewServiceUnavailable("the server is currently unable to handle the request"), false},
		{"the words in another status", apierrors.NewInternalError(errors.New(
			"Resource kind example.com/v1, Kind=Widget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.")), false},
		{"a NotFound", apierrors.NewNotFound(schema.GroupResource{Group: "example.com", Resource: "widgets"}, "w"), false},
		{"no error", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := admissionLag(tc.err); got != tc.want {
				t.Errorf("admissionLag(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

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
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestAccessErrors(t *testing.T) {
	roles := schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}
	configMaps := schema.GroupResource{Resource: "configmaps"}
	listRoles := &AccessError{Missing: []Permission{{Verb: "list", Resource: roles}}}
	writes := &AccessError{Missing: []Permission{
		{Verb: "patch", Resource: roles}, {Verb: "create", Resource: roles},
		{Verb: "create", Resource: configMaps, Namespace: "team-b"}, {Verb: "list", Resource: roles},
	}}
	tests := []struct {
		name string
		errs []error
		want string
	}{
		{name: "none", errs: []error{nil, nil}},
		{name: "one", errs: []error{listRoles},
			want: "may not list clusterroles.rbac.authorization.k8s.io (cluster-scoped): grant these to the identity the set acts as, or take the objects out of the set"},
		{name: "merged, once each, one clause per resource and namespace", errs: []error{listRoles, nil, writes},
			want: "may not create, list and patch clusterroles.rbac.authorization.k8s.io (cluster-scoped); create configmaps in namespace team-b: " +
				"grant these to the identity the set acts as, or take the objects out of the set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := JoinAccessErrors(tt.errs...)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("JoinAccessErrors() = %v, want nil", err)
				}
				return
			}
			var denied *AccessError
			if !errors.As(err, &denied) || err.Error() != tt.want {
				t.Errorf("JoinAccessErrors() = %v\nwant %s", err, tt.want)
			}
		})
	}

	other := errors.New("the API server is away")
	if err := JoinAccessErrors(listRoles, other); !errors.Is(err, other) {
		t.Errorf("JoinAccessErrors(access, other) = %v, want the other error", err)
	}
}

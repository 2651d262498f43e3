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

package applysets

import (
	"fmt"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// memberClient returns the client that reads and writes members: impersonating
// the set's service account, the default one, or the operator itself.
func (r *Reconciler) memberClient(set applyv1alpha1.Set) (client.Client, error) {
	defaultNS, defaultName, _ := strings.Cut(r.DefaultServiceAccount, "/")
	user := ""
	switch sa := set.GetCommonSpec().ServiceAccountName; {
	case sa != "" && set.GetNamespace() != "":
		user = serviceAccountUser(set.GetNamespace(), sa)
	case sa != "":
		// A cluster-scoped set's service account lives in the operator's namespace.
		user = serviceAccountUser(defaultNS, sa)
	case defaultName != "":
		user = serviceAccountUser(defaultNS, defaultName)
	}
	if user == "" {
		return r.Client, nil
	}
	if c, ok := r.clients.Load(user); ok {
		return c.(client.Client), nil
	}
	cfg := rest.CopyConfig(r.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: r.Scheme, Mapper: r.Mapper})
	if err != nil {
		return nil, fmt.Errorf("a client impersonating %s: %w", user, err)
	}
	r.clients.Store(user, c)
	return c, nil
}

// engine returns an apply engine acting as the set's identity, reading without a cache.
func (r *Reconciler) engine(set applyv1alpha1.Set) (*apply.Engine, error) {
	c, err := r.memberClient(set)
	if err != nil {
		return nil, err
	}
	var reader client.Reader = c // impersonating clients read live
	if c == r.Client {
		reader = r.Reader
	}
	return &apply.Engine{Client: c, Reader: reader, FieldManager: identity.MembersFieldManager}, nil
}

func serviceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

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
	"cmp"
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// actor is the identity a set acts as: a ServiceAccount, or, in single-tenant
// mode, the operator itself.
type actor struct {
	// serviceAccount is nil for the operator itself.
	serviceAccount *types.NamespacedName
}

func (a actor) String() string {
	if a.serviceAccount == nil {
		return "the operator"
	}
	return "ServiceAccount " + a.serviceAccount.String()
}

// user is the name the API server knows the actor by; "" for the operator.
func (a actor) user() string {
	if a.serviceAccount == nil {
		return ""
	}
	return "system:serviceaccount:" + a.serviceAccount.Namespace + ":" + a.serviceAccount.Name
}

var (
	// errNoServiceAccount marks a set that names no ServiceAccount where one
	// is needed; only a change of the set or the operator's flags helps.
	errNoServiceAccount = errors.New("no ServiceAccount to act as")
	// errServiceAccountNotFound marks a named ServiceAccount that does not exist (yet).
	errServiceAccountNotFound = errors.New("the ServiceAccount does not exist")
)

// actorOf works out whom the set acts as. A ServiceAccount the set names wins;
// otherwise a single-tenant operator acts as itself, and a namespaced set as
// the default ServiceAccount of its namespace. A ClusterApplySet has no
// namespace to take a default from, so outside single-tenant mode it must name
// its account.
func (r *Reconciler) actorOf(set applyv1alpha1.Set) (actor, error) {
	namespace, name := set.GetServiceAccount()
	switch {
	case name != "":
		return actor{serviceAccount: &types.NamespacedName{Namespace: namespace, Name: name}}, nil
	case r.opts.SingleTenant:
		return actor{}, nil
	case set.GetNamespace() != "" && r.opts.DefaultServiceAccount != "":
		return actor{serviceAccount: &types.NamespacedName{Namespace: set.GetNamespace(), Name: r.opts.DefaultServiceAccount}}, nil
	case set.GetNamespace() != "":
		return actor{}, fmt.Errorf("%w: name one in spec.serviceAccountName (the operator runs without a default ServiceAccount)",
			errNoServiceAccount)
	}
	return actor{}, fmt.Errorf("%w: a ClusterApplySet names the ServiceAccount it acts as in spec.serviceAccountName "+
		"and spec.serviceAccountNamespace", errNoServiceAccount)
}

// engine returns an apply engine acting as a, after checking that its
// ServiceAccount exists, and the reader of the set's sources: every read and
// write made for the set is made as its actor, discovery included.
func (r *Reconciler) engine(ctx context.Context, a actor) (*apply.Engine, client.Reader, error) {
	engine := &apply.Engine{FieldManager: identity.MembersFieldManager, NamespaceExists: r.namespaceExists, Concurrency: r.opts.ApplyConcurrency,
		LegacyManagers: r.opts.LegacyManagers}
	if r.permissions != nil {
		user := ""
		if a.serviceAccount != nil {
			user = a.user()
		}
		engine.Permissions = r.permissions.of(user)
	}
	if a.serviceAccount == nil {
		c, err := r.clientsOf("")
		if err != nil {
			return nil, nil, err
		}
		engine.Client, engine.Reader, engine.Discovery = c.client, r.reader, c.discovery
		return engine, r.reader, nil
	}
	// The API server would authenticate an impersonated account that does not
	// exist with the groups of all ServiceAccounts; only real accounts act.
	sa := &metav1.PartialObjectMetadata{}
	sa.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ServiceAccount"))
	if err := r.client.Get(ctx, *a.serviceAccount, sa); apierrors.IsNotFound(err) {
		return nil, nil, fmt.Errorf("%w: %s; create it and grant it what the set needs", errServiceAccountNotFound, a)
	} else if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", a, err)
	}
	c, err := r.clientsOf(a.user())
	if err != nil {
		return nil, nil, err
	}
	engine.Client, engine.Reader, engine.Discovery = c.client, c.client, c.discovery // impersonating clients read live
	return engine, c.client, nil
}

// identityClients read and write as one identity.
type identityClients struct {
	client    client.Client
	discovery discovery.DiscoveryInterface
}

// clientsOf returns the clients acting as user, or, for "", as the operator
// (its cached client), made once per user. Discovery caches nothing: a type
// added since the last look must not be missed when a namespace is proven empty.
func (r *Reconciler) clientsOf(user string) (identityClients, error) {
	if c, ok := r.clients.Load(user); ok {
		return c.(identityClients), nil
	}
	ic, cfg := identityClients{client: r.client}, r.config
	if user != "" {
		var err error
		if ic.client, cfg, err = impersonating(r.config, user, client.Options{Scheme: r.scheme, Mapper: r.mapper}); err != nil {
			return identityClients{}, err
		}
	}
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return identityClients{}, fmt.Errorf("a discovery client acting as %s: %w", cmp.Or(user, "the operator"), err)
	}
	ic.discovery = d
	r.clients.Store(user, ic)
	return ic, nil
}

// impersonating is a client acting as user, made from the operator's cfg,
// and the config it uses.
func impersonating(cfg *rest.Config, user string, opts client.Options) (client.Client, *rest.Config, error) {
	cfg = impersonated(cfg, user)
	c, err := client.New(cfg, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("a client impersonating %s: %w", user, err)
	}
	return c, cfg, nil
}

// impersonated is a copy of cfg acting as user; "" acts as cfg does.
func impersonated(cfg *rest.Config, user string) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	return cfg
}

// namespaceExists tells the engine whether a namespace it cannot list in is
// gone. It reads as the operator: it decides only what to skip, and gives the
// set nothing to read.
func (r *Reconciler) namespaceExists(ctx context.Context, name string) (bool, error) {
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	err := r.reader.Get(ctx, client.ObjectKey{Name: name}, ns)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

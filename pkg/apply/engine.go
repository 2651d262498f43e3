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
	"cmp"
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Engine applies, prunes and disbands sets of objects: Apply (apply.go),
// Prune (prune.go, with the cascade guard of cascade.go) and Disband
// (disband.go) read and write through its client, as its client's identity,
// and check that identity's permissions before they change anything
// (access.go).
type Engine struct {
	// Client reads and writes members; give it an impersonating config to act
	// with a tenant's permissions.
	Client client.Client
	// Reader lists members for pruning; nil uses Client. Give a cached client an
	// uncached reader here: a cache would keep every object of each listed kind.
	Reader client.Reader
	// FieldManager owns the fields the engine applies.
	FieldManager string
	// Concurrency bounds the requests in flight at once; 0 means DefaultConcurrency.
	Concurrency int
	// ListPageSize bounds the objects one LIST returns; 0 means 500, as
	// kubectl's --chunk-size. A set's members are read and listed page by
	// page, so that a big set is never held whole.
	ListPageSize int
	// EstablishTimeout bounds the wait for applied CRDs to be served; 0 means a minute.
	EstablishTimeout time.Duration
	// NamespaceExists, when set, is asked about a namespace whose members
	// cannot be listed: a namespace that is gone holds no members, and its
	// RoleBindings went with it.
	NamespaceExists func(ctx context.Context, namespace string) (bool, error)
	// Discovery lists the types the API server serves, for telling whether a
	// Namespace a prune would delete holds anything else; give it the
	// client's identity. Nil keeps every such Namespace: its contents cannot
	// be listed.
	Discovery discovery.DiscoveryInterface
	// ForbiddenRetry bounds how long a write is retried that the API server
	// refuses although this engine's permission check just allowed it
	// (transient.go); 0 means defaultForbiddenRetry.
	ForbiddenRetry time.Duration
	// AdmissionLagRetry bounds how long a write is retried that the API
	// server's mutating admission policies refuse because they do not know
	// its kind yet (admissionLag, transient.go); 0 means
	// defaultAdmissionLagRetry.
	AdmissionLagRetry time.Duration
	// LegacyManagers name the field managers whose update entries an apply
	// removes, with kubectl's last-applied annotation, once it has applied an
	// object, so that the set owns exactly what it declares (handover.go).
	// Nil means DefaultLegacyManagers; an empty list hands over none.
	LegacyManagers []string
	// Permissions, when set, is shared by the engines acting as the same
	// identity: answers to permission checks are reused for its TTL
	// (permissions.go). Nil asks every time.
	Permissions *Permissions

	// own remembers this engine's answers when Permissions is nil, for the
	// retry of transient refusals.
	own atomic.Pointer[Permissions]
}

// permissions is where the engine's answers are kept.
func (e *Engine) permissions() *Permissions {
	if e.Permissions != nil {
		return e.Permissions
	}
	if c := e.own.Load(); c != nil {
		return c
	}
	e.own.CompareAndSwap(nil, NewPermissions(0))
	return e.own.Load()
}

// ErrOverlap marks an object that already belongs to another set.
var ErrOverlap = errors.New("the object belongs to another ApplySet")

// reader is where members are listed for a prune.
func (e *Engine) reader() client.Reader {
	if e.Reader != nil {
		return e.Reader
	}
	return e.Client
}

// answered reports whether err is the API server's answer to a request, as
// opposed to no answer at all: a request that got none may have been made.
func answered(err error) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status)
}

// failed is the change of an object whose apply or prune failed with err.
func failed(ref ObjectRef, err error) Change {
	return Change{Ref: ref, Action: Failed, Reason: err.Error()}
}

func sortChanges(changes []Change) {
	slices.SortFunc(changes, func(a, b Change) int { return cmp.Compare(a.Ref.String(), b.Ref.String()) })
}

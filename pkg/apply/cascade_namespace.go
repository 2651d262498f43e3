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
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"

	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// serviceAccountNameAnnotation names the account a token Secret is for.
const serviceAccountNameAnnotation = "kubernetes.io/service-account.name"

var (
	configMapKind      = schema.GroupKind{Kind: "ConfigMap"}
	secretKind         = schema.GroupKind{Kind: "Secret"}
	serviceAccountKind = schema.GroupKind{Kind: "ServiceAccount"}
	serviceKind        = schema.GroupKind{Kind: "Service"}
	endpointsKind      = schema.GroupKind{Kind: "Endpoints"}
)

// namespacedType is a type whose objects a Namespace's deletion deletes.
type namespacedType struct {
	kind     schema.GroupVersionKind
	resource schema.GroupResource
	// listable is false for a type that serves delete but no list.
	listable bool
}

// namespacedTypes are the types a Namespace's deletion deletes, and what
// could not be discovered: types that may exist and cannot be looked at.
type namespacedTypes struct {
	types  []namespacedType
	unread []string
}

// discoverNamespaced asks the API server, as the engine's identity, which
// namespaced types it serves.
func (e *Engine) discoverNamespaced(ctx context.Context) (*namespacedTypes, error) {
	if e.Discovery == nil {
		return &namespacedTypes{unread: []string{"every type (the engine has no discovery)"}}, nil
	}
	lists, err := discovery.ServerPreferredNamespacedResourcesWithContext(ctx, discovery.ToDiscoveryInterfaceWithContext(e.Discovery))
	out := &namespacedTypes{}
	var failed *discovery.ErrGroupDiscoveryFailed
	switch {
	case errors.As(err, &failed):
		for gv := range failed.Groups {
			out.unread = append(out.unread, "the types of "+gv.String()+" (not discovered)")
		}
		slices.Sort(out.unread)
	case unlistable(err):
		return &namespacedTypes{unread: []string{"every type (" + whyUnlistable(err) + ")"}}, nil
	case err != nil:
		return nil, fmt.Errorf("discovering the namespaced types: %w", err)
	}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if takenWithNamespace(gv.Group, r) {
				out.types = append(out.types, namespacedType{kind: gv.WithKind(r.Kind), resource: gv.WithResource(r.Name).GroupResource(),
					listable: slices.Contains(r.Verbs, "list")})
			}
		}
	}
	slices.SortFunc(out.types, func(a, b namespacedType) int { return cmp.Compare(a.resource.String(), b.resource.String()) })
	return out, nil
}

// takenWithNamespace reports whether a Namespace's deletion takes objects
// of the resource r of group, so that one of them makes the Namespace
// occupied. The namespace controller deletes only types that serve delete;
// the others (metrics, reviews) hold nothing of anyone's. Events are records
// of what happened, not objects anyone made to keep, and expire on their own.
func takenWithNamespace(group string, r metav1.APIResource) bool {
	if !slices.Contains(r.Verbs, "delete") {
		return false
	}
	return r.Name != "events" || (group != "" && group != "events.k8s.io")
}

// occupant is an object in a Namespace, as far as the guard needs it.
type occupant struct {
	ref ObjectRef
	uid types.UID
	// owners are the UIDs of its owner references.
	owners []types.UID
	// serviceAccount is the account a token Secret names, or "".
	serviceAccount string
	// deleting is true once its deletion has begun.
	deleting bool
}

func occupantOf(gk schema.GroupKind, obj *metav1.PartialObjectMetadata) occupant {
	o := occupant{ref: ObjectRef{GroupKind: gk, Namespace: obj.Namespace, Name: obj.Name}, uid: obj.UID, deleting: !obj.DeletionTimestamp.IsZero()}
	for _, r := range obj.OwnerReferences {
		o.owners = append(o.owners, r.UID)
	}
	if gk == secretKind {
		o.serviceAccount = obj.Annotations[serviceAccountNameAnnotation]
	}
	return o
}

// namespaceOccupied says what the Namespace named ns holds besides what
// goes with g, or "" when it holds nothing else: the Namespace's deletion
// would take it. Every type is listed, as the engine's identity; a type that
// cannot be listed leaves the Namespace occupied, since it cannot be proven
// empty.
func (e *Engine) namespaceOccupied(ctx context.Context, ns string, nt namespacedTypes, g going) (string, error) {
	var (
		mu        sync.Mutex
		occupants []occupant
		unlisted  = slices.Clone(nt.unread)
	)
	grp, gctx := errgroup.WithContext(ctx)
	grp.SetLimit(cmp.Or(e.Concurrency, DefaultConcurrency))
	for _, t := range nt.types {
		if !t.listable {
			unlisted = append(unlisted, t.resource.String()+" (no list)")
			continue
		}
		grp.Go(func() error {
			var found []occupant
			err := e.listAll(gctx, t.kind, ns, func(obj *metav1.PartialObjectMetadata) {
				found = append(found, occupantOf(t.kind.GroupKind(), obj))
			})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case kindGone(err):
			case unlistable(err):
				unlisted = append(unlisted, t.resource.String()+" ("+whyUnlistable(err)+")")
			case err != nil:
				return fmt.Errorf("listing %s in %s: %w", t.resource, ns, err)
			default:
				occupants = append(occupants, found...)
			}
			return nil
		})
	}
	if err := grp.Wait(); err != nil {
		return "", err
	}
	slices.Sort(unlisted)
	return occupiedReason(remaining(occupants, g), unlisted), nil
}

// remaining returns, sorted, the occupants a Namespace's deletion would take
// that do not go anyway: not deleted by the prune, not owned, every owner
// transitively, by what it deletes (garbage collection takes those: a
// Deployment's ReplicaSets and Pods, a Service's EndpointSlices), not made
// by Kubernetes (madeByKubernetes), and not already being deleted.
func remaining(occupants []occupant, g going) []occupant {
	gone := g.uids.Clone()
	for grew := true; grew; {
		grew = false
		for _, o := range occupants {
			if len(o.owners) == 0 || gone.Has(o.uid) || !gone.HasAll(o.owners...) {
				continue
			}
			gone.Insert(o.uid)
			grew = true
		}
	}
	var out []occupant
	for _, o := range occupants {
		if !gone.Has(o.uid) && !o.deleting && !madeByKubernetes(o, g) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b occupant) int { return cmp.Compare(a.ref.String(), b.ref.String()) })
	return out
}

// madeByKubernetes reports whether Kubernetes itself made o, in every
// namespace or from a member the prune deletes, so that no one loses it with
// the Namespace:
//   - the ServiceAccount default, which the service account controller
//     creates in every namespace (and creates again if deleted);
//   - the ConfigMap kube-root-ca.crt, which the root CA publisher puts in
//     every namespace;
//   - token Secrets of default or of a ServiceAccount the prune deletes: the
//     token controller deletes a token Secret whose account is gone. A
//     Secret's type is not in its metadata; its account annotation is what
//     that controller reads;
//   - the Endpoints of a Service the prune deletes, which the endpoints
//     controller names after the Service and deletes with it.
//
// Its EndpointSlices and everything else controllers make for members carry
// owner references, which remaining follows. Events are never listed
// (takenWithNamespace). Anything else anyone put in the namespace, a
// PersistentVolumeClaim a StatefulSet's template made included, keeps it.
func madeByKubernetes(o occupant, g going) bool {
	switch o.ref.GroupKind {
	case serviceAccountKind:
		return o.ref.Name == "default"
	case configMapKind:
		return o.ref.Name == "kube-root-ca.crt"
	case secretKind:
		return o.serviceAccount == "default" ||
			(o.serviceAccount != "" && g.refs.Has(ObjectRef{GroupKind: serviceAccountKind, Namespace: o.ref.Namespace, Name: o.serviceAccount}))
	case endpointsKind:
		return g.refs.Has(ObjectRef{GroupKind: serviceKind, Namespace: o.ref.Namespace, Name: o.ref.Name})
	}
	return false
}

// occupiedReason says why a Namespace holding others and, as far as it
// could not be looked at, unlisted types is kept; "" when it holds nothing.
func occupiedReason(others []occupant, unlisted []string) string {
	if len(others) > 0 {
		names := make([]string, 0, shownOccupants)
		for _, o := range others[:min(len(others), shownOccupants)] {
			names = append(names, o.ref.GroupKind.String()+" "+o.ref.Name)
		}
		return fmt.Sprintf("%d %s that this prune does not delete %s in it (%s%s); %s", len(others),
			plural(len(others), "object", "objects"), plural(len(others), "lives", "live"),
			strings.Join(names, ", "), more(len(others), len(names)), cascadeHint("Namespace"))
	}
	if len(unlisted) > 0 {
		return fmt.Sprintf("cannot tell that it holds nothing else, as it cannot list %s in it; grant the set's identity list on them, "+
			"or annotate the set's declaration of the Namespace %s: allow to let its deletion take whatever is there",
			text.Summarize(unlisted, shownOccupants), CascadeAnnotation)
	}
	return ""
}

// whyUnlistable names, in a word or two, why unlistable(err) holds.
func whyUnlistable(err error) string {
	switch {
	case apierrors.IsForbidden(err):
		return "forbidden"
	case apierrors.IsMethodNotSupported(err):
		return "no list"
	case apierrors.IsServiceUnavailable(err):
		return "unavailable"
	}
	return err.Error()
}

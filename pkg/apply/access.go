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
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Permission is one verb on one resource, in one namespace or, with none, at
// cluster scope.
type Permission struct {
	Verb      string
	Resource  schema.GroupResource
	Namespace string
}

func (p Permission) String() string {
	if p.Namespace == "" {
		return p.Verb + " " + p.Resource.String() + " (cluster-scoped)"
	}
	return p.Verb + " " + p.Resource.String() + " in namespace " + p.Namespace
}

func comparePermissions(a, b Permission) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Resource.String(), b.Resource.String()),
		cmp.Compare(a.Verb, b.Verb))
}

// AccessError lists the permissions the engine's identity lacks for a change.
// When Apply, Prune or Disband returns it, they changed nothing.
type AccessError struct {
	Missing []Permission
}

func (e *AccessError) Error() string {
	// One clause per resource and namespace: "create, get and patch
	// clusterroles.rbac.authorization.k8s.io (cluster-scoped)".
	type where struct {
		resource  schema.GroupResource
		namespace string
	}
	var order []where
	verbs := map[where][]string{}
	for _, p := range e.Missing {
		w := where{p.Resource, p.Namespace}
		if verbs[w] == nil {
			order = append(order, w)
		}
		verbs[w] = append(verbs[w], p.Verb)
	}
	clauses := make([]string, 0, len(order))
	for _, w := range order {
		clauses = append(clauses, Permission{Verb: joinWords(verbs[w]), Resource: w.resource, Namespace: w.namespace}.String())
	}
	return "may not " + strings.Join(clauses, "; ") + ": grant these to the identity the set acts as, or take the objects out of the set"
}

// joinWords joins words as a sentence does: "a", "a and b", "a, b and c".
func joinWords(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// JoinAccessErrors merges access errors into one that names every missing
// permission once, so that a person can grant them all at once. An error of
// another kind wins, as it says something went wrong besides permissions.
func JoinAccessErrors(errs ...error) error {
	joined := &AccessError{}
	for _, err := range errs {
		var denied *AccessError
		switch {
		case err == nil:
		case errors.As(err, &denied):
			joined.Missing = append(joined.Missing, denied.Missing...)
		default:
			return err
		}
	}
	if len(joined.Missing) == 0 {
		return nil
	}
	slices.SortFunc(joined.Missing, comparePermissions)
	joined.Missing = slices.Compact(joined.Missing)
	return joined
}

// deniedRead turns a Forbidden answer to a read into the permission it
// lacked; nil for any other error.
func deniedRead(err error, verb string, resource schema.GroupResource, namespace string) *Permission {
	if !apierrors.IsForbidden(err) {
		return nil
	}
	return &Permission{Verb: verb, Resource: resource, Namespace: namespace}
}

// checkAccess asks the API server, as the engine's identity, whether it may
// do each of perms, and returns an *AccessError naming those it may not
// (besides the reads already known to be denied). Each distinct permission is
// asked once, and not at all while the identity's shared answers hold one. A
// namespaced one is answered first by the identity's rules in its namespace,
// one rules review for all of them (rules.go); what the rules do not grant,
// and every cluster-scoped one, an access review answers.
func (e *Engine) checkAccess(ctx context.Context, perms []Permission, denied ...Permission) error {
	perms = slices.Clone(perms)
	slices.SortFunc(perms, comparePermissions)
	perms = slices.Compact(perms)
	answers := e.permissions()
	rules, err := e.rulesFor(ctx, answers, perms)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	missing := slices.Clone(denied)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmp.Or(e.Concurrency, DefaultConcurrency))
	for _, p := range perms {
		g.Go(func() error {
			allowed, err := answers.answer(p, func() (bool, error) {
				if rules[p.Namespace].allows(p) {
					return true, nil
				}
				review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
					ResourceAttributes: &authorizationv1.ResourceAttributes{
						Verb: p.Verb, Group: p.Resource.Group, Resource: p.Resource.Resource, Namespace: p.Namespace,
					},
				}}
				if err := e.Client.Create(gctx, review); err != nil {
					return false, fmt.Errorf("asking whether the set may %s: %w", p, err)
				}
				return review.Status.Allowed, nil
			})
			if err != nil {
				return err
			}
			if !allowed {
				mu.Lock()
				missing = append(missing, p)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if len(missing) == 0 {
		return nil
	}
	slices.SortFunc(missing, comparePermissions)
	return &AccessError{Missing: slices.Compact(missing)}
}

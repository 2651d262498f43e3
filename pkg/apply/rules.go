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
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/component-helpers/auth/rbac/validation"
)

// maxRules bounds the rules kept of one rules review. An identity whose
// roles hold more is answered by access reviews alone, so that what a
// tenant's roles hold does not decide what the operator keeps in memory.
const maxRules = 1000

// namespaceRules is what one SelfSubjectRulesReview said the identity may
// do in one namespace: every role bound to it there and cluster-wide. One
// review answers what would take an access review per verb and resource.
type namespaceRules struct {
	rules []rbacv1.PolicyRule
	// complete is false where the review said its list may lack rules
	// (an authorizer that cannot list them, such as a webhook, which may
	// also deny what the rules allow), failed in part, or held more than
	// maxRules: then only access reviews answer.
	complete bool
	at       time.Time
}

// allows reports whether the rules grant p. Only a namespaced permission
// may be answered so: a review of one namespace lists the rules of the
// RoleBindings there too, which grant nothing cluster-scoped. A false
// answer proves nothing, and is asked again as an access review.
func (r namespaceRules) allows(p Permission) bool {
	if !r.complete || p.Namespace == "" {
		return false
	}
	covered, _ := validation.Covers(r.rules, []rbacv1.PolicyRule{{
		Verbs: []string{p.Verb}, APIGroups: []string{p.Resource.Group}, Resources: []string{p.Resource.Resource},
	}})
	return covered
}

// rulesOf keeps what a review's status says, as the rules it may be trusted for.
func rulesOf(status authorizationv1.SubjectRulesReviewStatus, at time.Time) namespaceRules {
	out := namespaceRules{at: at, complete: !status.Incomplete && status.EvaluationError == "" && len(status.ResourceRules) <= maxRules}
	if !out.complete {
		return out
	}
	for _, r := range status.ResourceRules {
		out.rules = append(out.rules, rbacv1.PolicyRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
	}
	return out
}

// reviewRules asks the API server, as the engine's identity, for its rules
// in namespace. A cluster that forbids the review leaves the questions to
// access reviews.
func (e *Engine) reviewRules(ctx context.Context, namespace string) (namespaceRules, error) {
	review := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: namespace}}
	err := e.Client.Create(ctx, review)
	switch {
	case apierrors.IsForbidden(err):
		return namespaceRules{at: time.Now()}, nil
	case err != nil:
		return namespaceRules{}, fmt.Errorf("asking what the set may do in namespace %s: %w", namespace, err)
	}
	return rulesOf(review.Status, time.Now()), nil
}

// rulesFor reads the identity's rules in each namespace where one of perms
// has no answer yet, all at once: the checks that follow answer from them
// what they grant.
func (e *Engine) rulesFor(ctx context.Context, answers *Permissions, perms []Permission) (map[string]namespaceRules, error) {
	var namespaces []string
	now := time.Now()
	for _, p := range perms {
		if _, ok := answers.cached(p, now); !ok && p.Namespace != "" && !slices.Contains(namespaces, p.Namespace) {
			namespaces = append(namespaces, p.Namespace)
		}
	}
	var mu sync.Mutex
	out := make(map[string]namespaceRules, len(namespaces))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmp.Or(e.Concurrency, DefaultConcurrency))
	for _, ns := range namespaces {
		g.Go(func() error {
			r, err := answers.rulesIn(ns, func() (namespaceRules, error) { return e.reviewRules(gctx, ns) })
			mu.Lock()
			out[ns] = r
			mu.Unlock()
			return err
		})
	}
	return out, g.Wait()
}

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
	"regexp"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// For a moment after the API server starts, its authorizer answers from
// caches that are not filled yet and refuses what RBAC allows. A write
// refused so, moments after the engine's permission check allowed that very
// verb on that very resource, is retried quietly for a bounded time. Any
// other refusal (a permission the check denied, an admission denial, a
// permission never checked) ends the write at once.
const (
	// defaultForbiddenRetry bounds how long such a write is retried.
	defaultForbiddenRetry = 10 * time.Second
	// grantLife is how long an allowed check counts as just allowed.
	grantLife = time.Minute
	// firstTransientDelay and maxTransientDelay space the retries.
	firstTransientDelay = 200 * time.Millisecond
	maxTransientDelay   = 2 * time.Second
)

// A write of a custom resource made soon after its CRD was created may be
// refused by the API server's mutating admission policy plugin, with 503
// "Resource kind ... not found. There can be a delay between when
// CustomResourceDefinitions are created and when they are available.",
// whenever a MutatingAdmissionPolicy matches it: the plugin reads the
// schemas of custom kinds from the server's own OpenAPI document, which it
// polls every 5 seconds, and refuses what it cannot convert. Such a write is
// retried for a bounded time too.
const (
	// defaultAdmissionLagRetry bounds how long such a write is retried.
	defaultAdmissionLagRetry = 30 * time.Second
)

// admissionLagMessage matches the whole message of that refusal.
var admissionLagMessage = regexp.MustCompile(`^Resource kind \S.* not found\. There can be a delay between when CustomResourceDefinitions are created and when they are available\.?$`)

// admissionLag reports whether err is the mutating admission policy
// plugin's refusal of a kind it does not know yet: a 503 that passes once
// the plugin has read the kind's schema.
func admissionLag(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsServiceUnavailable(err) || !errors.As(err, &status) {
		return false
	}
	return admissionLagMessage.MatchString(status.Status().Message)
}

// authorizerDenial matches the whole message the API server's authorization
// filter writes: the Forbidden status names the resource, then the user and
// what it may not do. Admission denials, which are Forbidden too, follow
// "is forbidden:" with the admission plugin's words, which may quote anything.
var authorizerDenial = regexp.MustCompile(`^\S+(?: "(?:[^"\\]|\\.)*")? is forbidden: ` +
	`User "(?:[^"\\]|\\.)*" cannot (\S+) resource "([^"/]+)(?:/[^"]*)?" in API group "([^"]*)"` +
	`(?: in the namespace "([^"]*)"| at the cluster scope)`)

// refusedPermission is the permission an authorizer's Forbidden answer
// names; false for any other error, an admission denial among them.
func refusedPermission(err error) (Permission, bool) {
	var status apierrors.APIStatus
	if !apierrors.IsForbidden(err) || !errors.As(err, &status) {
		return Permission{}, false
	}
	m := authorizerDenial.FindStringSubmatch(status.Status().Message)
	if m == nil {
		return Permission{}, false
	}
	return Permission{Verb: m[1], Resource: schema.GroupResource{Group: m[3], Resource: m[2]}, Namespace: m[4]}, true
}

// transientlyForbidden is true when err refuses a permission a check of the
// engine allowed moments ago.
func (e *Engine) transientlyForbidden(err error) (Permission, bool) {
	p, ok := refusedPermission(err)
	return p, ok && e.permissions().grantedRecently(p, time.Now())
}

// retryTransient runs write, and runs it again while the API server refuses
// it for a reason that passes on its own: a permission the engine's check
// just allowed (for at most ForbiddenRetry), or a kind its mutating
// admission policies do not know yet (admissionLag, for at most
// AdmissionLagRetry). A refusal that outlasts its bound is returned, saying so.
func (e *Engine) retryTransient(ctx context.Context, write func() error) error {
	err := write()
	start := time.Now()
	log := logr.FromContextOrDiscard(ctx)
	for delay := firstTransientDelay; ; delay = min(2*delay, maxTransientDelay) {
		p, forbidden := e.transientlyForbidden(err)
		lag := !forbidden && admissionLag(err)
		if !forbidden && !lag {
			return err
		}
		bound := cmp.Or(e.ForbiddenRetry, defaultForbiddenRetry)
		if lag {
			bound = cmp.Or(e.AdmissionLagRetry, defaultAdmissionLagRetry)
		}
		if time.Since(start)+delay > bound {
			if forbidden {
				return fmt.Errorf("%w (refused for %s although a permission check allowed %s moments before)",
					err, time.Since(start).Round(time.Second), p)
			}
			return fmt.Errorf("%w (still refused after %s: the API server's mutating admission policies do not know this kind yet)",
				err, time.Since(start).Round(time.Second))
		}
		if forbidden {
			log.Info("Retrying a write the API server refused although a permission check just allowed it",
				"permission", p.String(), "retryIn", delay.String())
		} else {
			log.Info("Retrying a write the API server refused while its mutating admission policies learn a new kind",
				"error", err.Error(), "retryIn", delay.String())
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		err = write()
	}
}

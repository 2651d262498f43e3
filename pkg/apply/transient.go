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
	// DefaultForbiddenRetry bounds how long such a write is retried.
	DefaultForbiddenRetry = 10 * time.Second
	// grantLife is how long an allowed check counts as just allowed.
	grantLife = time.Minute
	// firstForbiddenDelay and maxForbiddenDelay space the retries.
	firstForbiddenDelay = 200 * time.Millisecond
	maxForbiddenDelay   = 2 * time.Second
)

// authorizerDenial matches the whole message the API server's authorization
// filter writes: the Forbidden status names the resource, then the user and
// what it may not do. Admission denials, which are Forbidden too, follow
// "is forbidden:" with the admission plugin's words, which may quote anything.
var authorizerDenial = regexp.MustCompile(`^\S+(?: "(?:[^"\\]|\\.)*")? is forbidden: ` +
	`User "(?:[^"\\]|\\.)*" cannot (\S+) resource "([^"/]+)(?:/[^"]*)?" in API group "([^"]*)"` +
	`(?: in the namespace "([^"]*)"| at the cluster scope)`)

// RefusedPermission is the permission an authorizer's Forbidden answer
// names; false for any other error, an admission denial among them.
func RefusedPermission(err error) (Permission, bool) {
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
	p, ok := RefusedPermission(err)
	return p, ok && e.permissions().grantedRecently(p, time.Now())
}

// retryForbidden runs write, and runs it again while the API server refuses
// it a permission the engine's check just allowed, for at most
// ForbiddenRetry. A refusal that outlasts the bound is returned, saying so.
func (e *Engine) retryForbidden(ctx context.Context, write func() error) error {
	err := write()
	p, transient := e.transientlyForbidden(err)
	if !transient {
		return err
	}
	start := time.Now()
	deadline := start.Add(cmp.Or(e.ForbiddenRetry, DefaultForbiddenRetry))
	log := logr.FromContextOrDiscard(ctx)
	for delay := firstForbiddenDelay; transient; delay = min(2*delay, maxForbiddenDelay) {
		if time.Now().Add(delay).After(deadline) {
			return fmt.Errorf("%w (refused for %s although a permission check allowed %s moments before)",
				err, time.Since(start).Round(time.Second), p)
		}
		log.Info("Retrying a write the API server refused although a permission check just allowed it",
			"permission", p.String(), "retryIn", delay.String())
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		err = write()
		p, transient = e.transientlyForbidden(err)
	}
	return err
}

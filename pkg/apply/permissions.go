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
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Permissions remembers the answers an identity's permission checks got.
// Engines acting as one identity share one, so that sets acting as the same
// ServiceAccount do not ask the API server the same questions on every
// reconcile. An answer is reused for TTL; Forget drops them all, which the
// owner does whenever the cluster's RBAC changes, so that a revoked
// permission stops writes at the next check rather than after TTL. The API
// server still authorizes every write as the identity: a reused answer only
// decides whether the engine tries, and how it words a refusal.
//
// Allowed answers also back the retry of transient refusals (transient.go):
// a write refused moments after a check allowed it is retried for a while.
type Permissions struct {
	// TTL is how long an answer is reused; 0 asks every time.
	TTL time.Duration

	mu      sync.Mutex
	answers map[Permission]answer
	// rules are the identity's rules by namespace (rules.go).
	rules map[string]namespaceRules
	// forgotten counts Forget calls: an answer asked for before one is not kept.
	forgotten uint64
	// asking lets engines that miss the same answer at once ask once.
	asking singleflight.Group
}

// answer is one check's result and when the API server gave it.
type answer struct {
	allowed bool
	at      time.Time
}

// NewPermissions returns a cache reusing answers for ttl.
func NewPermissions(ttl time.Duration) *Permissions {
	return &Permissions{TTL: ttl}
}

// Forget drops every answer.
func (c *Permissions) Forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answers, c.rules = nil, nil
	c.forgotten++
}

// recordUnlessForgotten records an answer asked for when Forget had been
// called `before` times: an answer that may predate a change of RBAC
// answers only the engine that asked.
func (c *Permissions) recordUnlessForgotten(p Permission, allowed bool, now time.Time, before uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgotten != before {
		return
	}
	if c.answers == nil {
		c.answers = map[Permission]answer{}
	}
	c.answers[p] = answer{allowed: allowed, at: now}
}

// cached returns the answer to p given within TTL of now, if there is one.
func (c *Permissions) cached(p Permission, now time.Time) (allowed, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, found := c.answers[p]
	if !found || now.Sub(a.at) >= c.TTL {
		return false, false
	}
	return a.allowed, true
}

// answer returns the answer to p, reused while it lives, or from check,
// which is asked once however many engines want it at the same moment.
func (c *Permissions) answer(p Permission, check func() (bool, error)) (bool, error) {
	if allowed, ok := c.cached(p, time.Now()); ok {
		return allowed, nil
	}
	return askOnce(c, p.String(), check, func(allowed bool, before uint64) {
		c.recordUnlessForgotten(p, allowed, time.Now(), before)
	})
}

// askOnce asks ask once for all who want key at the same moment, and hands
// its value to keep with the count of Forget calls before it was asked.
func askOnce[T any](c *Permissions, key string, ask func() (T, error), keep func(v T, before uint64)) (T, error) {
	v, err, _ := c.asking.Do(key, func() (any, error) {
		c.mu.Lock()
		before := c.forgotten
		c.mu.Unlock()
		v, err := ask()
		if err == nil {
			keep(v, before)
		}
		return v, err
	})
	if err != nil {
		var none T
		return none, err
	}
	return v.(T), nil
}

// grantedRecently is true when a check allowed p within grantLife of now.
func (c *Permissions) grantedRecently(p Permission, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.answers[p]
	return ok && a.allowed && now.Sub(a.at) < grantLife
}

// rulesIn returns the identity's rules in namespace, reused for TTL, or
// from review, which is asked once however many checks want it at once.
// Rules asked for before a Forget are not kept, as answers are not.
func (c *Permissions) rulesIn(namespace string, review func() (namespaceRules, error)) (namespaceRules, error) {
	c.mu.Lock()
	r, found := c.rules[namespace]
	c.mu.Unlock()
	if found && time.Since(r.at) < c.TTL {
		return r, nil
	}
	return askOnce(c, "rules in "+namespace, review, func(r namespaceRules, before uint64) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.forgotten != before {
			return
		}
		if c.rules == nil {
			c.rules = map[string]namespaceRules{}
		}
		c.rules[namespace] = r
	})
}

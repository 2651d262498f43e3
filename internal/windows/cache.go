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

package windows

import (
	"strings"
	"sync"
	"time"
)

// Cache keeps decisions by the windows they were made of, so that a set
// reconciled again and again (each edit of an annotation wakes it) pays for
// its windows once until their decision changes.
type Cache struct {
	mu      sync.Mutex
	entries map[string]cached
}

// cached is a decision and the times between which it holds.
type cached struct {
	d         Decision
	at, until time.Time
}

// Bounds of the cache: the entries it keeps, and how long a decision whose
// next change is not known is kept.
const (
	maxCached     = 4096
	unknownChange = time.Minute
)

// NewCache returns an empty Cache.
func NewCache() *Cache { return &Cache{entries: map[string]cached{}} }

// DecideAll is the package's DecideAll, taken from the cache while t falls
// between when it was decided and its next change.
func (c *Cache) DecideAll(groups [][]Window, t time.Time) Decision {
	key := cacheKey(groups)
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && !t.Before(e.at) && t.Before(e.until) {
		return e.d
	}
	d := DecideAll(groups, t)
	until := t.Add(unknownChange)
	if !d.Next.IsZero() && !d.Unsearched {
		until = d.Next
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCached {
		for k := range c.entries { // any one: a map's order is random
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = cached{d: d, at: t, until: until}
	return d
}

// cacheKey names groups by their windows as written, in order.
func cacheKey(groups [][]Window) string {
	var b strings.Builder
	for _, g := range groups {
		for _, w := range g {
			b.WriteString(w.String())
			b.WriteByte('\n')
		}
		b.WriteByte(0)
	}
	return b.String()
}

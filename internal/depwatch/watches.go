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

// Package depwatch wakes the sets that wait for objects (spec.dependsOn
// entries that name an object) when those objects change.
//
// A watch is of one object, selected by namespace and name, and made as
// the identity of the sets that depend on it: the operator's rights never
// widen what a tenant makes it watch, and one watch holds one object's
// metadata. It starts only after that identity has read the object and
// may list it. Watches are bounded per set, per namespace of the sets, and
// in all; a set beyond a bound is told why, and looks again by itself.
// Each watch wakes its own sets: no event of one waits on another's.
package depwatch

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
)

// Target is one object a set depends on, as the identity that watches it.
type Target struct {
	// User is the identity the watch acts as; "" is the operator's own,
	// for sets that act as the operator.
	User     string
	Resource schema.GroupVersionResource
	// Namespace is "" for a cluster-scoped object.
	Namespace, Name string
}

func (t Target) String() string {
	if t.Namespace == "" {
		return t.Resource.GroupResource().String() + " " + t.Name
	}
	return t.Resource.GroupResource().String() + " " + t.Namespace + "/" + t.Name
}

// Limits bound the watches: those one set and the sets of one namespace
// have (a watch two sets share counts for each), and those running in all.
type Limits struct {
	PerSet, PerNamespace, Total int
}

// DefaultLimits are half of what spec.dependsOn may name per set, four sets'
// worth per namespace, and in all a thousand streams of the operator's
// connections to the API server, each holding one object's metadata.
var DefaultLimits = Limits{PerSet: 16, PerNamespace: 64, Total: 1024}

// ClientFor is a metadata client acting as user ("" for the operator).
type ClientFor func(user string) (metadata.Interface, error)

// Watches are the watches of the objects sets of type S depend on.
type Watches[S comparable] struct {
	clientFor ClientFor
	wake      func(S)
	limits    Limits

	mu sync.Mutex
	// base is the context watches run in; nil until Start.
	base         context.Context
	watches      map[Target]*watch[S]
	sets         map[S]*subscriber
	perNamespace map[string]int
}

// subscriber is what one set watches, and the namespace it is charged to.
type subscriber struct {
	namespace string
	targets   map[Target]bool
}

// New returns Watches acting through clientFor, calling wake with each
// waiting set whose object changed. Zero limits are DefaultLimits'.
func New[S comparable](clientFor ClientFor, wake func(S), limits Limits) *Watches[S] {
	if limits.PerSet <= 0 {
		limits.PerSet = DefaultLimits.PerSet
	}
	if limits.PerNamespace <= 0 {
		limits.PerNamespace = DefaultLimits.PerNamespace
	}
	if limits.Total <= 0 {
		limits.Total = DefaultLimits.Total
	}
	return &Watches[S]{clientFor: clientFor, wake: wake, limits: limits, watches: map[Target]*watch[S]{},
		sets: map[S]*subscriber{}, perNamespace: map[string]int{}}
}

// Start lets watches run, within ctx; the first call decides.
func (w *Watches[S]) Start(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.base == nil {
		w.base = ctx
	}
}

// Want makes targets what set, of namespace, watches: those it no longer
// names stop, and each new one starts, after a list of it as its identity
// proves the watch may run. waiting says whether their changes wake the
// set. It returns, for each target not watched, why: the set must then look
// again by itself.
func (w *Watches[S]) Want(ctx context.Context, set S, namespace string, targets []Target, waiting bool) map[Target]string {
	unwatched := map[Target]string{}
	var missing []Target
	w.mu.Lock()
	w.dropLocked(set, func(t Target) bool { return !slices.Contains(targets, t) })
	for _, t := range targets {
		if w.has(set, t) {
			w.watches[t].mark(set, waiting)
			continue
		}
		if why := w.boundLocked(set, namespace, t); why != "" {
			unwatched[t] = why
			continue
		}
		if ws := w.watches[t]; ws != nil {
			w.joinLocked(set, namespace, t, ws, waiting)
			continue
		}
		missing = append(missing, t)
	}
	w.mu.Unlock()
	// The probes are requests: made without the lock, so that other sets'
	// calls do not wait on them.
	for _, t := range missing {
		if why := w.add(ctx, set, namespace, t, waiting); why != "" {
			unwatched[t] = why
		}
	}
	return unwatched
}

// Release stops what set watches; watches no set needs stop.
func (w *Watches[S]) Release(set S) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropLocked(set, func(Target) bool { return true })
}

// Len is the number of watches running.
func (w *Watches[S]) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watches)
}

// add starts the watch of t for set, once a list as its identity succeeds,
// and says why not otherwise.
func (w *Watches[S]) add(ctx context.Context, set S, namespace string, t Target, waiting bool) string {
	client, err := w.clientFor(t.User)
	if err != nil {
		return err.Error()
	}
	if why := probe(ctx, client, t); why != "" {
		return why
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// Another call may have started it, or taken the room, meanwhile.
	if why := w.boundLocked(set, namespace, t); why != "" {
		return why
	}
	ws := w.watches[t]
	if ws == nil {
		if w.base == nil {
			return "the operator is still starting"
		}
		if ws, err = start(w.base, client, t, w.wake); err != nil {
			return "it cannot be watched: " + err.Error()
		}
		w.watches[t] = ws
	}
	w.joinLocked(set, namespace, t, ws, waiting)
	return ""
}

func (w *Watches[S]) has(set S, t Target) bool {
	sub := w.sets[set]
	return sub != nil && sub.targets[t]
}

// boundLocked says which limit leaves no room for set to watch t.
func (w *Watches[S]) boundLocked(set S, namespace string, t Target) string {
	n := 0
	if sub := w.sets[set]; sub != nil {
		n = len(sub.targets)
	}
	switch {
	case w.has(set, t):
		return ""
	case n >= w.limits.PerSet:
		return fmt.Sprintf("the set watches %d objects already, the most one set may", w.limits.PerSet)
	case w.perNamespace[namespace] >= w.limits.PerNamespace:
		return fmt.Sprintf("the sets of its namespace watch %d objects already, the most they may (--max-dependency-watches-per-namespace)",
			w.limits.PerNamespace)
	case w.watches[t] == nil && len(w.watches) >= w.limits.Total:
		return fmt.Sprintf("the operator watches %d objects already, its limit (--max-dependency-watches)", w.limits.Total)
	}
	return ""
}

func (w *Watches[S]) joinLocked(set S, namespace string, t Target, ws *watch[S], waiting bool) {
	sub := w.sets[set]
	if sub == nil {
		sub = &subscriber{namespace: namespace, targets: map[Target]bool{}}
		w.sets[set] = sub
	}
	sub.targets[t] = true
	w.perNamespace[sub.namespace]++
	ws.mark(set, waiting)
}

// dropLocked stops set watching each target drop names.
func (w *Watches[S]) dropLocked(set S, drop func(Target) bool) {
	sub := w.sets[set]
	if sub == nil {
		return
	}
	for t := range sub.targets {
		if !drop(t) {
			continue
		}
		delete(sub.targets, t)
		if w.perNamespace[sub.namespace]--; w.perNamespace[sub.namespace] == 0 {
			delete(w.perNamespace, sub.namespace)
		}
		if ws := w.watches[t]; ws != nil && ws.leave(set) {
			delete(w.watches, t)
		}
	}
	if len(sub.targets) == 0 {
		delete(w.sets, set)
	}
}

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
	"sync"

	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ApplyOptions are the choices of one apply. The name pairs it with
// PruneOptions: each verb of the engine takes its own options.
type ApplyOptions struct { //nolint:revive // apply.ApplyOptions reads as the options of the Apply verb.
	// SetID is written into every object's part-of label.
	SetID string
	// DryRun previews the apply with server-side dry-run: nothing changes.
	DryRun bool
	// Force takes over fields that other appliers own. Fields that other
	// managers only changed with update requests are taken back without it,
	// and reported as drift.
	Force bool
	// Ignore leaves fields of objects that exist to other writers.
	Ignore []IgnoreRule
}

// defaultConcurrency bounds the requests the engine has in flight at once.
const defaultConcurrency = 8

// Apply applies the objects with server-side apply, each labelled as a member
// of the set. It first reads every object and asks the API server whether the
// engine's identity may make the writes the apply needs; when it may not, it
// writes nothing and returns an *AccessError. Then it applies
// CustomResourceDefinitions and Namespaces, waits until the CRDs are served,
// and applies the rest. The change set has one change per object; the error
// joins every object's error.
func (e *Engine) Apply(ctx context.Context, objects []Object, opts ApplyOptions) (ChangeSet, error) {
	plans := e.inspect(ctx, objects, opts)
	if err := e.checkAccess(ctx, writePermissions(plans), deniedReads(plans)...); err != nil {
		return ChangeSet{DryRun: opts.DryRun}, err
	}
	first, rest := splitStages(plans)
	cs, err := e.writeAll(ctx, first, opts)
	cs.DryRun = opts.DryRun
	if err != nil {
		return cs, err
	}
	if !opts.DryRun {
		if err := e.waitForCRDs(ctx, objectsOf(first)); err != nil {
			return cs, err
		}
	}
	more, err := e.writeAll(ctx, rest, opts)
	cs.Append(more)
	sortChanges(cs.Changes)
	return cs, err
}

// CheckApply reads the objects and asks whether the engine's identity may
// make the writes an apply of them needs, writing nothing: it returns the
// *AccessError Apply would, or nil.
func (e *Engine) CheckApply(ctx context.Context, objects []Object, opts ApplyOptions) error {
	plans := e.inspect(ctx, objects, opts)
	return e.checkAccess(ctx, writePermissions(plans), deniedReads(plans)...)
}

// writePermissions are the permissions the writes of plans need: patch for
// every apply, and create as well for objects that do not exist yet (an apply
// that creates is authorized as a create too).
func writePermissions(plans []objectPlan) []Permission {
	var perms []Permission
	for _, p := range plans {
		if p.done != nil {
			continue
		}
		perm := Permission{Verb: "patch", Resource: p.Resource, Namespace: p.Object.Object.GetNamespace()}
		perms = append(perms, perm)
		if p.existing == nil {
			perm.Verb = "create"
			perms = append(perms, perm)
		}
	}
	return perms
}

func deniedReads(plans []objectPlan) []Permission {
	var denied []Permission
	for _, p := range plans {
		if p.denied != nil {
			denied = append(denied, *p.denied)
		}
	}
	return denied
}

// splitStages puts CRDs and Namespaces first: the rest may need them.
func splitStages(plans []objectPlan) (first, rest []objectPlan) {
	for _, p := range plans {
		switch p.Ref().GroupKind {
		case crdGroupKind, namespaceGroupKind:
			first = append(first, p)
		default:
			rest = append(rest, p)
		}
	}
	return first, rest
}

// writeAll applies the plans that need a write, concurrently, and reports the
// others as inspected.
func (e *Engine) writeAll(ctx context.Context, plans []objectPlan, opts ApplyOptions) (ChangeSet, error) {
	var (
		mu   sync.Mutex
		cs   ChangeSet
		errs []error
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmp.Or(e.Concurrency, defaultConcurrency))
	for _, p := range plans {
		g.Go(func() error {
			w := written{change: p.done, err: p.err}
			if p.done == nil {
				w = e.write(gctx, p, opts)
			}
			mu.Lock()
			defer mu.Unlock()
			cs.Changes = append(cs.Changes, *w.change)
			if w.conflict != nil {
				cs.Conflicts = append(cs.Conflicts, *w.conflict)
			}
			if w.tookBack != nil {
				cs.Drift = append(cs.Drift, *w.tookBack)
			}
			if w.forced != nil {
				cs.Forced = append(cs.Forced, *w.forced)
			}
			if w.err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", p.Ref(), w.err))
			}
			return nil
		})
	}
	_ = g.Wait()
	sortChanges(cs.Changes)
	return cs, errors.Join(errs...)
}

// written is the outcome of one object's apply.
type written struct {
	change *Change
	// conflict holds the fields other appliers kept.
	conflict *Conflict
	// tookBack holds the fields taken back from managers that only updated.
	tookBack *Conflict
	// forced holds the fields taken from other appliers with Force.
	forced *Conflict
	err    error
}

// write applies one object. It applies without force first, so that every
// field taken from another manager is known: fields of managers that only
// ever updated the object (kubectl edit, scale, controllers) are drift and are
// taken back; fields of other appliers are taken only with Force.
func (e *Engine) write(ctx context.Context, p objectPlan, opts ApplyOptions) written {
	ref := p.Ref()
	applyOpts := []client.ApplyOption{client.FieldOwner(e.FieldManager)}
	if opts.DryRun {
		applyOpts = append(applyOpts, client.DryRunAll)
	}
	result := p.desired.DeepCopy()
	err := e.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(result), applyOpts...)
	var w written
	if conflict := ConflictOf(ref, err); conflict != nil {
		edited := p.existing != nil && onlyEdited(p.existing, conflict.managers)
		if !edited && !opts.Force {
			w.conflict = conflict
			w.change, w.err = changeOf(failed(ref, errors.New(conflict.Message()))), err
			return w
		}
		result = p.desired.DeepCopy()
		err = e.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(result), append(applyOpts, client.ForceOwnership)...)
		if edited {
			w.tookBack = conflict
		} else {
			w.forced = conflict
		}
	}
	if err != nil {
		w.tookBack, w.forced = nil, nil
		reason := err
		if conflict := ConflictOf(ref, err); conflict != nil {
			w.conflict, reason = conflict, errors.New(conflict.Message())
		}
		w.change, w.err = changeOf(failed(ref, reason)), err
		return w
	}
	w.change = &Change{Ref: ref, Action: Created}
	if !opts.DryRun {
		w.change.Object = result
	}
	if p.existing != nil {
		w.change.Action = Unchanged
		if fields := changedFields(p.existing.Object, result.Object); len(fields) > 0 {
			w.change.Action, w.change.Fields = Configured, fields
		}
	}
	return w
}

func changeOf(c Change) *Change { return &c }

// objectsOf returns the objects of plans.
func objectsOf(plans []objectPlan) []Object {
	out := make([]Object, 0, len(plans))
	for _, p := range plans {
		out = append(out, p.Object)
	}
	return out
}

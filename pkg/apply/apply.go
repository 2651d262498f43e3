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
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ApplyOptions are the choices of one apply. The name pairs it with
// PruneOptions: each verb of the engine takes its own options.
type ApplyOptions struct { //nolint:revive // apply.ApplyOptions reads as the options of the Apply verb.
	// SetID is written into every object's part-of label.
	SetID string
	// Timed, when not nil, is told how long each step of the apply took:
	// "inspect" (reading the objects as they are), "check" (asking whether
	// the writes are allowed) and "write" (each group's writes), so that a
	// caller can trace where a large apply spends its time.
	Timed func(step string, took time.Duration)
	// DryRun previews the apply with server-side dry-run: nothing changes.
	DryRun bool
	// Force takes over fields that other appliers own. Fields that other
	// managers only changed with update requests are taken back without it,
	// and reported as drift.
	Force bool
	// Ignore leaves fields of objects that exist to other writers.
	Ignore []IgnoreRule
	// WithoutDigest leaves out the digest annotation, to preview an apply by
	// a tool that keeps none (kubectl): the preview then shows only what that
	// tool would change.
	WithoutDigest bool
	// Ready, when set, judges whether an applied object works. A group whose
	// objects depend on one that does not is not applied yet: its objects are
	// reported Pending, with what they wait for.
	Ready func(*unstructured.Unstructured) (bool, string)
	// Keep, when set, is what each Change keeps of the object the apply
	// left (Change.Object): Ready and the caller's own judging must need no
	// more, and it must keep the object's identity (type, name, namespace
	// and uid). A set of 100,000 members holds them all until it ends.
	Keep func(*unstructured.Unstructured) *unstructured.Unstructured
	// Only, when not nil, is the approved Intent: an object is written only
	// when its request body is the one approved; any other write waits
	// (intent.go).
	Only Intent
	// LeaveDrift leaves an object as it is when it exists and the engine
	// last applied this very configuration to it (the digest says so), and
	// reports what others changed in it in ChangeSet.DriftLeft instead of
	// taking it back. An object whose declaration changed is applied.
	LeaveDrift bool
	// Recorded, when not nil, are the objects the set records as its
	// members. Any other object is created guarded instead of read first: it
	// is read only should it exist (guard.go). Nil reads every object.
	Recorded sets.Set[ObjectRef]
}

// DefaultConcurrency bounds the requests the engine has in flight at once.
// The API server's CPU, not the round trip, limits a large apply: 16 in
// flight took 1,000 objects in about three quarters of the time 8 did
// (make bench BENCH=ApplySetVersusKubectl).
const DefaultConcurrency = 16

// Apply applies the objects with server-side apply, each labelled as a member
// of the set, in the groups Order puts them in. It first checks the order (no
// circle, every dependency outside the set exists), reads every object and
// asks the API server whether the engine's identity may make the writes the
// apply needs; when anything is wrong it writes nothing. Then it applies the
// groups one by one, waiting for the CRDs of each to be served, and stops
// before a group that depends on an object Ready does not judge ready. The
// change set has one change per object; the error joins every object's error.
func (e *Engine) Apply(ctx context.Context, objects []Object, opts ApplyOptions) (ChangeSet, error) {
	external, err := Order(objects)
	if err != nil {
		return ChangeSet{DryRun: opts.DryRun}, err
	}
	started := time.Now()
	plans := e.inspect(ctx, objects, opts)
	opts.timed("inspect", &started)
	intent, declared := intentOf(plans), declaredDigest(plans)
	holdUnapproved(plans, opts.Only)
	missing, denied, err := e.checkExternal(ctx, external)
	if err != nil {
		return ChangeSet{DryRun: opts.DryRun}, err
	}
	err = e.checkAccess(ctx, writePermissions(plans), append(deniedReads(plans), denied...)...)
	if accessDenied(err) && e.readGuarded(ctx, plans, opts) {
		// Ask again about what the objects as they are need.
		err = e.checkAccess(ctx, writePermissions(plans), append(deniedReads(plans), denied...)...)
	}
	opts.timed("check", &started)
	if err != nil {
		return ChangeSet{DryRun: opts.DryRun}, err
	}
	if len(missing) > 0 {
		return ChangeSet{DryRun: opts.DryRun}, fmt.Errorf("%s named in %s exist neither in the set nor in the cluster",
			joinRefs(missing), DependsOnAnnotation)
	}

	cs := ChangeSet{DryRun: opts.DryRun, Intent: intent, Declared: declared}
	live := map[ObjectRef]*unstructured.Unstructured{}
	groups := byGroup(plans)
	for i, group := range groups {
		if blocked := blockedBy(group, live, opts); blocked != "" {
			for _, rest := range groups[i:] {
				for _, p := range rest {
					cs.Changes = append(cs.Changes, Change{Ref: p.Ref(), Action: Waiting, Reason: blocked})
				}
			}
			break
		}
		applied, err := e.writeAll(ctx, group, opts)
		opts.timed("write", &started)
		cs.Append(applied)
		if err != nil {
			sortChanges(cs.Changes)
			return cs, err
		}
		if !opts.DryRun {
			if err := e.waitForCRDs(ctx, objectsOf(group)); err != nil {
				return cs, err
			}
		}
		for _, c := range applied.Changes {
			live[c.Ref] = c.Object
		}
	}
	sortChanges(cs.Changes)
	return cs, nil
}

// timed tells Timed the time since *since, and starts the next step.
func (o ApplyOptions) timed(step string, since *time.Time) {
	if o.Timed != nil {
		o.Timed(step, time.Since(*since))
	}
	*since = time.Now()
}

// byGroup splits plans by their apply group, in order.
func byGroup(plans []objectPlan) [][]objectPlan {
	var out [][]objectPlan
	slices.SortStableFunc(plans, func(a, b objectPlan) int { return cmp.Compare(a.Group, b.Group) })
	for i, p := range plans {
		if i == 0 || p.Group != plans[i-1].Group {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], p)
	}
	return out
}

// blockedBy says what a group waits for: an object of the set one of its
// objects depends on that the apply left not ready; "" when nothing.
func blockedBy(group []objectPlan, live map[ObjectRef]*unstructured.Unstructured, opts ApplyOptions) string {
	if opts.Ready == nil || opts.DryRun {
		return ""
	}
	for _, p := range group {
		for _, dep := range p.DependsOn {
			obj, inSet := live[dep]
			if !inSet {
				continue // outside the set: it exists, which is all that is asked of it
			}
			if obj == nil {
				return fmt.Sprintf("%s waits for %s, which was not applied", p.Ref(), dep)
			}
			if ready, why := opts.Ready(obj); !ready {
				return fmt.Sprintf("%s waits for %s: %s", p.Ref(), dep, why)
			}
		}
	}
	return ""
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
	g.SetLimit(cmp.Or(e.Concurrency, DefaultConcurrency))
	for i, p := range plans {
		g.Go(func() error {
			w := written{change: p.done, err: p.err}
			switch {
			case p.leave:
				w = e.findDrift(gctx, p, opts)
			case p.done == nil:
				w = e.write(gctx, p, opts)
			}
			// Written, the object as declared and as it was are not needed
			// any more: a set of 100,000 holds a copy of each until it ends.
			plans[i].desired, plans[i].existing = nil, nil
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
			if w.left != nil {
				cs.DriftLeft = append(cs.DriftLeft, *w.left)
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
	// left holds the drift found and left in place (LeaveDrift).
	left *Conflict
	err  error
}

// write applies one object. It applies without force first, so that every
// field taken from another manager is known (applyTaking).
func (e *Engine) write(ctx context.Context, p objectPlan, opts ApplyOptions) written {
	ref := p.Ref()
	applyOpts := []client.ApplyOption{client.FieldOwner(e.FieldManager)}
	if opts.DryRun {
		applyOpts = append(applyOpts, client.DryRunAll)
	}
	result, w, err := e.applyTaking(ctx, p, applyOpts, opts)
	if existed(p, err) {
		return e.writeExisting(ctx, p.Object, opts)
	}
	if w.change != nil {
		return w
	}
	if fields := immutableFields(err); len(fields) > 0 && p.existing != nil {
		if opts.Force {
			return e.recreate(ctx, p, fields, applyOpts, opts)
		}
		reason := fmt.Errorf("%s may not change once the object exists; set spec.force to delete and recreate it, "+
			"or change them back", strings.Join(fields, ", "))
		w.change, w.err = changeOf(failed(ref, reason)), errors.Join(reason, err)
		return w
	}
	if err != nil {
		w.tookBack, w.forced = nil, nil
		reason := err
		if conflict := conflictOf(ref, err); conflict != nil {
			w.conflict, reason = conflict, errors.New(conflict.Message())
		}
		w.change, w.err = changeOf(failed(ref, reason)), err
		w.change.Unsure = !opts.DryRun && !answered(err)
		return w
	}
	result, handed, err := e.handOver(ctx, result, p.desired, opts.DryRun)
	if err != nil {
		reason := fmt.Errorf("applied, but removing the ownership of %s failed: %w", strings.Join(handed.managers, ", "), err)
		w.change, w.err = changeOf(failed(ref, reason)), reason
		return w
	}
	w.change = &Change{Ref: ref, Action: Created}
	if handed != nil {
		w.change.HandedOver, w.change.Reason = handed.managers, handed.note(opts.DryRun)
	}
	if opts.DryRun {
		w.change.Live, w.change.Preview = p.existing, result
	} else {
		w.change.Object = opts.kept(result)
	}
	if p.existing != nil {
		w.change.Action = Unchanged
		if fields := changedFields(p.existing.Object, result.Object); len(fields) > 0 {
			w.change.Action, w.change.Fields = Configured, fields
		}
	}
	return w
}

// applyTaking applies one object and resolves the conflicts it may take:
// fields of managers that only ever updated the object (kubectl edit, scale,
// controllers) are drift and are taken back; fields of other appliers only
// with Force; the digest always. A conflict it may not take ends the write
// (w.change is set); otherwise the result and the error of the last apply.
func (e *Engine) applyTaking(ctx context.Context, p objectPlan, applyOpts []client.ApplyOption, opts ApplyOptions) (
	*unstructured.Unstructured, written, error) {
	ref := p.Ref()
	result := p.desired.DeepCopy()
	var w written
	if p.guarded {
		// An absent object has no fields to take: any conflict says it exists (existed).
		result.SetResourceVersion(guardResourceVersion)
		return result, w, e.applyObject(ctx, result, applyOpts...)
	}
	err := e.applyObject(ctx, result, applyOpts...)
	forced := append(slices.Clone(applyOpts), client.ForceOwnership)
	if onlyDigestConflicts(err) {
		// Another engine applied the object with its own digest: bookkeeping, not a field of the set.
		result = p.desired.DeepCopy()
		err = e.applyObject(ctx, result, forced...)
	}
	conflict := conflictOf(ref, err)
	if conflict == nil {
		return result, w, err
	}
	edited := p.existing != nil && onlyEdited(p.existing, conflict.managers)
	if !edited && !opts.Force {
		w.conflict = conflict
		w.change, w.err = changeOf(failed(ref, errors.New(conflict.Message()))), err
		return nil, w, err
	}
	result = p.desired.DeepCopy()
	err = e.applyObject(ctx, result, forced...)
	if edited {
		w.tookBack = conflict
	} else {
		w.forced = conflict
	}
	return result, w, err
}

// applyObject applies obj, which takes the API server's answer; a refusal
// the permission check contradicts, or one of a kind the API server's
// admission policies do not know yet, is retried (retryTransient).
func (e *Engine) applyObject(ctx context.Context, obj *unstructured.Unstructured, opts ...client.ApplyOption) error {
	return e.retryTransient(ctx, func() error {
		return e.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), opts...)
	})
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

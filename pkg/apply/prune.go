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

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// PruneOptions say which members a prune may delete.
type PruneOptions struct {
	// SetID is the ID the members carry.
	SetID string
	// ParentUID is the parent's UID; members with owner references must point at it.
	ParentUID string
	// Scope is where members are looked for and may be deleted: the union of
	// the namespaces the parent's hint lists and those of the new set, so
	// that members in a namespace that left the set are pruned too.
	Scope applyset.Scope
	// Kinds are the kinds to look at: the union of the parent's hint and the
	// kinds of the recorded members.
	Kinds sets.Set[schema.GroupKind]
	// Unlisted are kinds the new set declares that no member can be in yet:
	// a set writes its hint before its members, and neither the hint nor
	// the inventory names them. They are not listed, which spares a new set
	// a LIST per kind; whether the identity may list them is checked all the
	// same, so that the next prune, which lists them, is not refused after
	// the apply went ahead.
	Unlisted sets.Set[schema.GroupKind]
	// Keep are the objects still declared.
	Keep sets.Set[ObjectRef]
	// Proven says which of the objects that carry the set's label the set
	// applied; only those are deleted, the others are reported Foreign. Nil
	// proves nothing.
	Proven Proof
	// Cascade says which CustomResourceDefinitions and Namespaces may be
	// deleted with whatever else lives in them (cascade.go); the others are
	// deleted only when nothing but what the prune deletes would go with
	// them. Nil allows none.
	Cascade func(ObjectRef) bool
	// BeforeDelete, when set, is asked before each group of deletes; an error
	// stops the prune there, and the rest is reported Waiting.
	BeforeDelete func(context.Context) error
	// DryRun previews the prune with server-side dry-run.
	DryRun bool
}

// Proof says whether an object found by the set's label is verifiably one the
// set applied. A label alone proves nothing: whoever may patch an object may
// write it, under any field manager's name, and controllers copy their
// parents' labels onto what they create.
type Proof func(ref ObjectRef, obj *metav1.PartialObjectMetadata) bool

// LabelAppliedBy proves an object whose part-of label one of managers
// applied with server-side apply: the proof a set that keeps no inventory
// (kubectl's) affords. It is weaker than a recorded UID, since any client may
// name any field manager, but a controller that copies labels onto what it
// creates does not pass it.
func LabelAppliedBy(managers sets.Set[string]) Proof {
	return func(_ ObjectRef, obj *metav1.PartialObjectMetadata) bool {
		return slices.ContainsFunc(applyset.PartOfAppliers(obj.ManagedFields), managers.Has)
	}
}

// proves reports whether p proves obj; a nil Proof proves nothing.
func (p Proof) proves(ref ObjectRef, obj *metav1.PartialObjectMetadata) bool {
	return p != nil && p(ref, obj)
}

// foreign is the change of an object that carries the set's label but is not
// proven to be its member.
func foreign(m member) Change {
	c := Change{Ref: m.ref, Action: Foreign, Reason: "carries the set's label, but the set did not apply it",
		LabelledBy: applyset.PartOfWriters(m.obj.ManagedFields)}
	if len(c.LabelledBy) > 0 {
		c.Reason = "labelled by " + applyset.FormatWriters(c.LabelledBy) + "; the set did not apply it"
	}
	return c
}

// PrunePlan is what a prune will do: the members it deletes, in order, and
// those it keeps, with the reason.
type PrunePlan struct {
	opts    PruneOptions
	deletes []member
	skipped []Change
	// proven are the listed objects Proven proves, declared or not.
	proven map[ObjectRef]types.UID
}

// Proven returns the UIDs of the objects the plan found by the set's label
// that the set applied: the members as they are, declared or not.
func (p *PrunePlan) Proven() map[ObjectRef]types.UID { return p.proven }

// Foreign returns the objects the plan found by the set's label that the set
// did not apply and that it does not declare: they are left alone.
func (p *PrunePlan) Foreign() []Change {
	out := []Change{}
	for _, c := range p.skipped {
		if c.Action == Foreign {
			out = append(out, c)
		}
	}
	return out
}

// Prune plans and runs a prune: PlanPrune, then ExecutePrune.
func (e *Engine) Prune(ctx context.Context, opts PruneOptions) (ChangeSet, error) {
	plan, err := e.PlanPrune(ctx, opts)
	if err != nil {
		return ChangeSet{DryRun: opts.DryRun}, err
	}
	return e.ExecutePrune(ctx, plan)
}

// PlanPrune lists the members of the set in its kinds and namespaces and
// decides which may be deleted: those no longer declared that carry the set's
// ID, lie in its scope, and whose owner references, if any, point at the
// parent, less the CRDs and Namespaces whose deletion would take more than
// the prune deletes (cascade.go). It asks the API server whether the engine's
// identity may list them and delete them, and returns an *AccessError when it
// may not. It deletes nothing, so a caller can plan the prune before it
// applies anything.
func (e *Engine) PlanPrune(ctx context.Context, opts PruneOptions) (*PrunePlan, error) {
	members, denied, err := e.listMembers(ctx, opts.SetID, opts.Kinds, opts.Scope)
	if err != nil {
		return nil, err
	}
	plan := &PrunePlan{opts: opts, proven: map[ObjectRef]types.UID{}}
	for _, m := range members {
		proven := opts.Proven.proves(m.ref, m.obj)
		if proven {
			plan.proven[m.ref] = m.obj.UID
		}
		if opts.Keep.Has(m.ref) {
			continue // declared: the apply makes it a member, if it is not one yet
		}
		if !proven {
			if m.obj.DeletionTimestamp.IsZero() { // one on its way out, a member pruned before, is no one's concern
				plan.skipped = append(plan.skipped, foreign(m))
			}
			continue
		}
		if reason := pruneBlocker(m.obj, opts); reason != "" {
			plan.skipped = append(plan.skipped, Change{Ref: m.ref, Action: Skipped, Reason: reason})
			continue
		}
		plan.deletes = append(plan.deletes, m)
	}
	deletes, kept, err := e.guardCascades(ctx, plan.deletes, opts.Cascade)
	if err != nil {
		return nil, err
	}
	plan.deletes, plan.skipped = deletes, append(plan.skipped, kept...)
	perms, err := e.listPermissions(opts.Unlisted.Difference(opts.Kinds), opts.Scope)
	if err != nil {
		return nil, err
	}
	for _, m := range plan.deletes {
		perms = append(perms, Permission{Verb: "delete", Resource: m.resource, Namespace: m.ref.Namespace})
	}
	if err := e.checkAccess(ctx, perms, denied...); err != nil {
		return nil, err
	}
	orderDeletes(plan.deletes)
	return plan, nil
}

// orderDeletes puts deletes in reverse apply order: what others need goes
// last (Namespaces and CRDs after their contents, what a depends-on
// annotation names after the objects that name it). Each member's group is
// recorded. Members whose annotations do not parse, or depend on each other
// in a circle, are ordered by their kinds alone: a prune does not stop for them.
func orderDeletes(members []member) {
	nodes := make([]node, 0, len(members))
	for _, m := range members {
		n := node{ref: m.ref}
		if m.obj != nil && m.obj.Annotations[DependsOnAnnotation] != "" {
			if deps, err := ParseDependsOn(m.obj.Annotations[DependsOnAnnotation]); err == nil {
				n.dependsOn = deps
			}
		}
		nodes = append(nodes, n)
	}
	group, _, err := groups(nodes)
	for i := range members {
		if err != nil {
			members[i].group = stage(members[i].ref.GroupKind)
			continue
		}
		members[i].group = group[members[i].ref]
	}
	slices.SortStableFunc(members, func(a, b member) int { return cmp.Compare(b.group, a.group) })
}

// ExecutePrune deletes the members the plan chose, a group at a time in
// reverse apply order, the members of a group concurrently (at most
// Concurrency at once), each with a precondition on its UID, so that an object
// replaced since the plan is kept. Before it deletes a group it checks that
// the previous one is gone (objects with finalizers take a while): if not,
// the rest is reported Waiting, for a later prune.
func (e *Engine) ExecutePrune(ctx context.Context, plan *PrunePlan) (ChangeSet, error) {
	cs := ChangeSet{DryRun: plan.opts.DryRun, Changes: slices.Clone(plan.skipped)}
	var errs []error
	groups := deleteGroups(plan.deletes)
	for i, group := range groups {
		if i > 0 && !plan.opts.DryRun {
			// The groups before the previous one were found gone before it was deleted.
			if remaining := e.stillThere(ctx, groups[i-1]); remaining != "" {
				stillGoing(cs.Changes, groups[i-1])
				cs.Changes = append(cs.Changes, waiting(slices.Concat(groups[i:]...), "waits for "+remaining+" to be deleted")...)
				break
			}
		}
		if plan.opts.BeforeDelete != nil && !plan.opts.DryRun {
			if err := plan.opts.BeforeDelete(ctx); err != nil {
				cs.Changes = append(cs.Changes, waiting(slices.Concat(groups[i:]...), err.Error())...)
				errs = append(errs, err)
				break
			}
		}
		changes, err := e.deleteAll(ctx, group, plan.opts.DryRun)
		cs.Changes = append(cs.Changes, changes...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	sortChanges(cs.Changes)
	return cs, errors.Join(errs...)
}

// stillGoing marks the members of group that this prune deleted as Going:
// a later group waits for them, in this prune and, since they stay members,
// in the next ones, which order their deletes after them.
func stillGoing(changes []Change, group []member) {
	in := make(map[ObjectRef]bool, len(group))
	for _, m := range group {
		in[m.ref] = true
	}
	for i := range changes {
		if in[changes[i].Ref] && changes[i].Action == Pruned {
			changes[i].Going = true
		}
	}
}

// waiting reports members as not deleted yet, for reason.
func waiting(members []member, reason string) []Change {
	out := make([]Change, 0, len(members))
	for _, m := range members {
		out = append(out, Change{Ref: m.ref, Action: Waiting, Reason: reason})
	}
	return out
}

// deleteGroups splits members, ordered by group, into their groups.
func deleteGroups(members []member) [][]member {
	var out [][]member
	for i, m := range members {
		if i == 0 || m.group != members[i-1].group {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], m)
	}
	return out
}

// deleteAll deletes members concurrently and returns a change for each.
func (e *Engine) deleteAll(ctx context.Context, members []member, dryRun bool) ([]Change, error) {
	changes := make([]Change, len(members))
	errs := make([]error, len(members))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmp.Or(e.Concurrency, DefaultConcurrency))
	for i, m := range members {
		if !m.obj.DeletionTimestamp.IsZero() {
			// Deleted before, and held by a finalizer: asked again, it would
			// only be counted as pruned again.
			changes[i] = Change{Ref: m.ref, Action: Waiting, Reason: "being deleted: waits for it to be gone"}
			continue
		}
		g.Go(func() error {
			// Background, as kubectl deletes: a Job's pods go with it, where the
			// API's own default for a Job would orphan them.
			opts := []client.DeleteOption{client.Preconditions{UID: &m.obj.UID}, client.PropagationPolicy(metav1.DeletePropagationBackground)}
			if dryRun {
				opts = append(opts, client.DryRunAll)
			}
			changes[i] = Change{Ref: m.ref, Action: Pruned}
			err := e.retryTransient(gctx, func() error { return e.Client.Delete(gctx, m.obj, opts...) })
			if client.IgnoreNotFound(err) != nil {
				changes[i], errs[i] = failed(m.ref, err), fmt.Errorf("pruning %s: %w", m.ref, err)
			}
			return nil
		})
	}
	_ = g.Wait()
	return changes, errors.Join(errs...)
}

// stillThere names the first of members that has not gone yet, or "".
func (e *Engine) stillThere(ctx context.Context, members []member) string {
	for _, m := range members {
		current := &metav1.PartialObjectMetadata{}
		current.SetGroupVersionKind(m.obj.GroupVersionKind())
		err := e.reader().Get(ctx, client.ObjectKeyFromObject(m.obj), current)
		if err == nil && current.UID == m.obj.UID {
			return m.ref.String()
		}
	}
	return ""
}

// pruneBlocker says why a member must be kept, or "" when it may be deleted.
func pruneBlocker(m *metav1.PartialObjectMetadata, opts PruneOptions) string {
	if m.Labels[applyset.PartOfLabel] != opts.SetID {
		return "it does not carry the set's ID"
	}
	if m.Namespace != "" && !opts.Scope.Contains(m.Namespace) {
		return "it lies outside the set's namespaces"
	}
	if len(m.OwnerReferences) > 0 && !slices.ContainsFunc(m.OwnerReferences, func(r metav1.OwnerReference) bool {
		return string(r.UID) == opts.ParentUID
	}) {
		return fmt.Sprintf("it is owned by %s %s, not by the set's parent", m.OwnerReferences[0].Kind, m.OwnerReferences[0].Name)
	}
	return ""
}

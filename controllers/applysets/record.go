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

package applysets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// A set's record (its members, in status or in the chunks status names) is
// the proof prune and deletion act on, so it may only move forward. The
// record type below is the one writer of a set for one reconcile: the
// parent contract (ID, tooling, hints, finalizer), approvals spent, the
// status and its chunks (commit.go), and the finalizer's removal. Every
// write carries the resourceVersion of the set as the record last knew it
// stored. A Conflict, whoever caused it (a cache behind the API server, a
// write whose answer was lost, another replica or shard), reads the live
// set through the API reader, never the cache, rebases the write on it and
// tries again, up to maxRecordTries times.

// maxRecordTries bounds the writes of one change: the first, and a retry
// on the live set after each Conflict.
const maxRecordTries = 5

// errReplaced stops the writes of a reconcile whose set was deleted and
// created again under its name: the new one is not this run's to write.
var errReplaced = errors.New("the set was deleted and created again since it was read")

// record writes one set for one reconcile.
type record struct {
	r *Reconciler
	// set is the reconcile's copy. Its spec is the one the run acts on; its
	// resourceVersion, labels, annotations and finalizers follow the set as
	// stored; its status is what the reconcile will report.
	set applyv1alpha1.Set
	// stored is the status the API server holds at set's resourceVersion:
	// the base every write is computed from.
	stored *applyv1alpha1.ApplySetStatus
	// read are the members the run read (load), the base of its changes to
	// the record; nil until loaded.
	read *inventory.Inventory
	// hints are the hints the run last wrote: a live set found narrower is
	// widened again before the run goes on.
	hints *declared.Hints
	// moved is set once the set was found changed by another write than
	// the run's own: stored is then not the status the run read.
	moved bool
	// saved are the chunks written for a status not yet written, in
	// savedIn; strays the chunks of the set no status named when read.
	saved   []string
	savedIn string
	strays  []inventory.Stray
	// gone is set once the finalizer is removed: the set goes, and nothing
	// is written after.
	gone bool
	// run is what the history entry of a status write says of the run.
	run run
}

func (r *Reconciler) newRecord(set applyv1alpha1.Set) *record {
	return &record{r: r, set: set, stored: set.GetSetStatus().DeepCopy(), run: run{started: r.now()}}
}

// load reads the members the stored status records, inline or in chunks,
// as the run's base, and returns them with the members an earlier run of
// this process applied and could not record. Lost chunks are told (a
// Warning Event) and named, to be written again; the members of the others
// are returned: the lost ones are unproven, so left alone.
func (rec *record) load(ctx context.Context) (*inventory.Inventory, []string, error) {
	inv, lost, strays, lostErr, err := rec.r.loadInventory(ctx, rec.set, rec.stored)
	if err == nil && lostErr != nil {
		// The status read may have been replaced since, and the chunks it
		// named collected by their next writer: a loss is told only once
		// the live set confirms it.
		if _, err := rec.live(ctx); err != nil {
			return nil, nil, err
		}
		// Nothing was reported yet: the run goes on from the live record,
		// which is then the one it read.
		*rec.set.GetSetStatus() = *rec.stored.DeepCopy()
		rec.moved = false
		inv, lost, strays, lostErr, err = rec.r.loadInventory(ctx, rec.set, rec.stored)
	}
	if err != nil {
		return nil, nil, err
	}
	if lostErr != nil {
		rec.r.toldLost(ctx, rec.set, lostErr)
	}
	rec.read, rec.strays = inv, strays
	if p, ok := rec.r.unrecorded.Load(client.ObjectKeyFromObject(rec.set)); ok {
		// An earlier run of this process applied members it could not record:
		// this run starts from them, and records them as its own.
		merged := inventory.Rebase(p.(pending).base, p.(pending).next, *inv)
		return &merged, lost, nil
	}
	return inv, lost, nil
}

// live reads the set from the API server into what the record knows of it
// as stored, and returns it. The run's spec stays the one it acts on.
func (rec *record) live(ctx context.Context) (applyv1alpha1.Set, error) {
	live := rec.r.newSet()
	if err := rec.r.reader.Get(ctx, client.ObjectKeyFromObject(rec.set), live); err != nil {
		return nil, err
	}
	if live.GetUID() != rec.set.GetUID() {
		return nil, errReplaced
	}
	rec.set.SetResourceVersion(live.GetResourceVersion())
	rec.set.SetLabels(live.GetLabels())
	rec.set.SetAnnotations(live.GetAnnotations())
	rec.set.SetFinalizers(live.GetFinalizers())
	rec.stored = live.GetSetStatus().DeepCopy()
	rec.moved = true
	rec.r.wrote(rec.set, live.GetResourceVersion())
	return live, nil
}

// failed is what the record does after a write that failed: one with no
// clear answer may have been made, so the next reconcile reads the set
// from the API server rather than trust the cache.
func (rec *record) failed(err error) error {
	if !apierrors.IsNotFound(err) {
		rec.r.unsure(rec.set)
	}
	return err
}

// retry reports whether a write that failed with err is tried again on the
// live set, which it reads. try counts the writes made.
func (rec *record) retry(ctx context.Context, err error, try int) (bool, error) {
	if !apierrors.IsConflict(err) || try >= maxRecordTries {
		return false, rec.failed(err)
	}
	if _, err := rec.live(ctx); err != nil {
		return false, rec.failed(err)
	}
	return true, nil
}

// writeHints applies the ID label, the tooling annotation, hints and the
// members finalizer to the set, in one server-side apply under the hints
// field manager. It comes before the set writes any member, so that a set
// with members always has its finalizer; a set that never got this far has
// none to release. Every apply of the hints carries the finalizer: the
// manager owns it, and an apply without it would remove it. On a Conflict
// the hints written are the union of hints and the live set's: another run
// may have widened them for members of its own.
func (rec *record) writeHints(ctx context.Context, hints declared.Hints) error {
	rec.hints = &hints
	return rec.putHints(ctx, hints)
}

// cover widens the stored set's hints again where they no longer cover
// those the run wrote: another writer narrowed them meanwhile.
func (rec *record) cover(ctx context.Context) error {
	if rec.hints == nil {
		return nil
	}
	return rec.putHints(ctx, union(*rec.hints, rec.storedHints()))
}

func (rec *record) putHints(ctx context.Context, hints declared.Hints) error {
	for try := 1; ; try++ {
		written, err := rec.applyHints(ctx, hints)
		if err == nil || written {
			return err
		}
		if again, err := rec.retry(ctx, err, try); !again {
			return fmt.Errorf("writing the parent's ID and hints: %w", err)
		}
		hints = union(hints, rec.storedHints())
	}
}

// applyHints makes one apply of hints on the set as stored. written is
// true when nothing is left to write.
func (rec *record) applyHints(ctx context.Context, hints declared.Hints) (written bool, _ error) {
	gvk, err := rec.r.gvk()
	if err != nil {
		return true, err
	}
	set := rec.set
	patch := applyset.ParentPatch(gvk, rec.r.parentKey(set), applyset.ParentFields{
		ID: true, Tooling: ptr.To(identity.Tooling(rec.r.opts.ToolingVersion)),
		GroupKinds: hints.Kinds, AdditionalNamespaces: hints.Namespaces,
	})
	patch.SetFinalizers([]string{applyv1alpha1.MembersFinalizer})
	if hasAll(set.GetLabels(), patch.GetLabels()) && hasAll(set.GetAnnotations(), patch.GetAnnotations()) &&
		slices.Contains(set.GetFinalizers(), applyv1alpha1.MembersFinalizer) {
		return true, nil // already in place: a steady set costs no writes
	}
	patch.SetResourceVersion(set.GetResourceVersion())
	body, err := json.Marshal(patch.Object)
	if err != nil {
		return true, err
	}
	answer := metadataOf(set, gvk)
	if err := rec.r.client.Patch(ctx, answer, client.RawPatch(types.ApplyPatchType, body),
		client.FieldOwner(identity.HintsFieldManager), client.ForceOwnership); err != nil {
		return false, err
	}
	rec.stay(answer.GetResourceVersion())
	// Keep the in-memory copy in step, so later writes compare with it.
	set.SetLabels(withAll(set.GetLabels(), patch.GetLabels()))
	set.SetAnnotations(withAll(set.GetAnnotations(), patch.GetAnnotations()))
	if !slices.Contains(set.GetFinalizers(), applyv1alpha1.MembersFinalizer) {
		set.SetFinalizers(append(set.GetFinalizers(), applyv1alpha1.MembersFinalizer))
	}
	return true, nil
}

// storedHints are the hints of the set as stored.
func (rec *record) storedHints() declared.Hints {
	parent := applyset.ParseParent(rec.r.parentKey(rec.set), rec.set.GetLabels(), rec.set.GetAnnotations())
	return declared.Hints{Kinds: parent.GroupKinds, Namespaces: parent.Scope.AdditionalNamespaces}
}

// union is the hints that cover both a and b.
func union(a, b declared.Hints) declared.Hints {
	out := declared.Hints{Kinds: a.Kinds.Clone(), Namespaces: a.Namespaces.Clone()}
	if b.Kinds != nil {
		out.Kinds = out.Kinds.Union(b.Kinds)
	}
	if b.Namespaces != nil {
		out.Namespaces = out.Namespaces.Union(b.Namespaces)
	}
	return out
}

// stay records the resourceVersion a write of the set left it at.
func (rec *record) stay(resourceVersion string) {
	rec.set.SetResourceVersion(resourceVersion)
	rec.r.wrote(rec.set, resourceVersion)
}

// patchStatus writes to as the set's status, on the set as stored: the API
// server refuses it with a Conflict when the set changed since.
func (rec *record) patchStatus(ctx context.Context, to *applyv1alpha1.ApplySetStatus) error {
	gvk, err := rec.r.gvk()
	if err != nil {
		return err
	}
	from, next := rec.r.newSet(), rec.r.newSet()
	*from.GetSetStatus(), *next.GetSetStatus() = *rec.stored, *to
	from.SetResourceVersion(rec.set.GetResourceVersion())
	next.SetResourceVersion(rec.set.GetResourceVersion())
	data, err := client.MergeFromWithOptions(from, client.MergeFromWithOptimisticLock{}).Data(next)
	if err != nil {
		return err
	}
	answer := metadataOf(rec.set, gvk)
	if err := rec.r.client.Status().Patch(ctx, answer, client.RawPatch(types.MergePatchType, data)); err != nil {
		return err
	}
	rec.stay(answer.GetResourceVersion())
	rec.stored = to.DeepCopy()
	return nil
}

// spend records that the run applies the plan an approval, or a window
// override, let through, before the writes it allows. On a Conflict it
// tries again only while the live set still lets the same plan through,
// unspent: an approval or an override applies once.
func (rec *record) spend(ctx context.Context, s setrun.Spending) error {
	override := rec.set.GetAnnotations()[applyv1alpha1.WindowOverrideAnnotation]
	for try := 1; ; try++ {
		to := rec.stored.DeepCopy()
		spentTo(to, s, rec.r.now())
		err := rec.patchStatus(ctx, to)
		if err == nil {
			status := rec.set.GetSetStatus()
			status.Approval, status.Window = to.Approval.DeepCopy(), to.Window.DeepCopy()
			if s.Approval {
				rec.run.approvedBy = approverOf(rec.set, s.Digest)
			}
			return nil
		}
		spent := approvalSequence(rec.stored)
		if !apierrors.IsConflict(err) || try >= maxRecordTries {
			return fmt.Errorf("recording that plan %s was let through, before applying it: %w", s.Digest, rec.failed(err))
		}
		live, err := rec.live(ctx)
		if err != nil {
			return fmt.Errorf("recording that plan %s was let through, before applying it: %w", s.Digest, rec.failed(err))
		}
		if approvalSequence(rec.stored) != spent ||
			ptr.Deref(live.GetCommonSpec().ApprovedPlan, "") != ptr.Deref(rec.set.GetCommonSpec().ApprovedPlan, "") ||
			live.GetAnnotations()[applyv1alpha1.WindowOverrideAnnotation] != override {
			return fmt.Errorf("recording that plan %s was let through, before applying it: the set's approval or window "+
				"override changed since the plan was made (spent or replaced); nothing was applied, and the next reconcile "+
				"plans again", s.Digest)
		}
	}
}

// spentTo records s in status: the sequence moves on once, and the plan is
// named as the last approved, or overridden, or both.
func spentTo(status *applyv1alpha1.ApplySetStatus, s setrun.Spending, now time.Time) {
	if s.Approval {
		setApproval(status, outcome{now: now, approval: &approvalOutcome{mode: s.Mode, digest: s.Digest, spent: true}})
	} else {
		a := ptr.Deref(status.Approval, applyv1alpha1.ApprovalStatus{})
		a.Sequence = ptr.To(ptr.Deref(a.Sequence, 0) + 1)
		status.Approval = &a
	}
	if s.Override {
		w := ptr.Deref(status.Window, applyv1alpha1.WindowStatus{})
		w.OverriddenPlan = s.Digest
		status.Window = &w
	}
}

func approvalSequence(status *applyv1alpha1.ApplySetStatus) int64 {
	return ptr.Deref(ptr.Deref(status.Approval, applyv1alpha1.ApprovalStatus{}).Sequence, 0)
}

// removeFinalizer lets the set go: it removes the members finalizer, and
// no other, from the set as stored.
func (rec *record) removeFinalizer(ctx context.Context) error {
	gvk, err := rec.r.gvk()
	if err != nil {
		return err
	}
	for try := 1; ; try++ {
		if !controllerutil.ContainsFinalizer(rec.set, applyv1alpha1.MembersFinalizer) {
			rec.gone = true
			return nil
		}
		rest := slices.DeleteFunc(slices.Clone(rec.set.GetFinalizers()), func(f string) bool { return f == applyv1alpha1.MembersFinalizer })
		body, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"resourceVersion": rec.set.GetResourceVersion(), "finalizers": ptr.To(rest)}})
		if err != nil {
			return err
		}
		err = rec.r.client.Patch(ctx, metadataOf(rec.set, gvk), client.RawPatch(types.MergePatchType, body))
		if err == nil || apierrors.IsNotFound(err) {
			rec.set.SetFinalizers(rest)
			rec.gone = true
			return nil
		}
		if again, err := rec.retry(ctx, err, try); !again {
			if errors.Is(err, errReplaced) || apierrors.IsNotFound(err) {
				rec.gone = true
				return nil
			}
			return fmt.Errorf("removing the finalizer %s: %w", applyv1alpha1.MembersFinalizer, err)
		}
	}
}

// withAll is m with every entry of add.
func withAll(m, add map[string]string) map[string]string {
	if m == nil {
		m = make(map[string]string, len(add))
	}
	for k, v := range add {
		m[k] = v
	}
	return m
}

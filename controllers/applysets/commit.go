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
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// changes are what a run did to the record: the members it would record
// (next, from the members it read) and where they are kept. Nil when the
// run did not look at the members: the record stays as stored.
type changes struct {
	next   *inventory.Inventory
	placed *inventory.Placed
}

// records reports whether the run changes the record at all.
func (c changes) records() bool { return c.next != nil && c.placed != nil }

// commit writes the status the reconcile reports, with the members the run
// recorded. The chunks status will name are saved first, then status, the
// one commit point, then the chunks nothing names any more are collected.
// A Conflict rebases the report and the run's changes on the live set
// (rebase) and tries again; a set unchanged by the reconcile costs no
// write.
func (rec *record) commit(ctx context.Context, c changes) error {
	if rec.gone {
		return nil
	}
	// What the run applied is recorded even when the operator is stopping:
	// the objects it labelled are members all the same.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	err := rec.commitWithin(ctx, c)
	switch {
	case !c.records() || rec.read == nil:
		// The run recorded nothing: what an earlier one could not record waits on.
	case err == nil:
		rec.r.unrecorded.Delete(client.ObjectKeyFromObject(rec.set))
	default:
		// Kept for this process's next run of the set, which carries them
		// onto the record it reads.
		rec.r.unrecorded.Store(client.ObjectKeyFromObject(rec.set), pending{base: *rec.read, next: *c.next})
	}
	return err
}

// commitTimeout bounds the writes of a commit, retries after the API
// server was unreachable included.
const commitTimeout = 30 * time.Second

// pending are a run's changes to the record that no write recorded: the
// members it read and those it would have recorded.
type pending struct {
	base, next inventory.Inventory
}

func (rec *record) commitWithin(ctx context.Context, c changes) error {
	report := rec.set.GetSetStatus()
	to, placed, err := rec.rebase(ctx, report, c)
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(rec.stored, to) && (placed == nil || len(placed.Lost) == 0) {
		return nil // nothing new to report: a steady set costs no writes
	}
	rec.addHistory(to)
	if err := rec.r.stillOwner(ctx, rec.set); err != nil {
		return fmt.Errorf("not writing status: %w", err)
	}
	backoff := wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Steps: math.MaxInt32, Cap: 5 * time.Second}
	w := &statusWrite{to: to, placed: placed}
	for try := 1; ; {
		err := rec.writeStatus(ctx, w)
		if err == nil {
			*report = *w.to
			return nil
		}
		if transient(err) {
			// No answer, or one that says to try later: the write may have
			// been made, which the next try's Conflict tells.
			select {
			case <-ctx.Done():
				return rec.failed(fmt.Errorf("writing status: %w", err))
			case <-time.After(backoff.Step()):
				continue
			}
		}
		based := rec.stored
		again, err := rec.retry(ctx, err, try)
		try++
		if !again {
			return rec.unwritten(ctx, err)
		}
		if done, err := rec.redo(ctx, report, c, based, w); done || err != nil {
			return err
		}
	}
}

// statusWrite is a status a commit writes, where it keeps its members,
// and whether a try saved its chunks already.
type statusWrite struct {
	to     *applyv1alpha1.ApplySetStatus
	placed *inventory.Placed
	saved  bool
}

// redo readies w for another try, after a Conflict on a write computed
// from the status based, on the live set now stored; done when nothing is
// left to write.
func (rec *record) redo(ctx context.Context, report *applyv1alpha1.ApplySetStatus, c changes, based *applyv1alpha1.ApplySetStatus,
	w *statusWrite) (done bool, _ error) {
	if err := rec.cover(ctx); err != nil {
		return true, err
	}
	if equality.Semantic.DeepEqual(based, rec.stored) {
		// Only the set's metadata or spec moved (an annotation, a label, an
		// edit): the status computed on that record stands, and its chunks
		// are saved. The next try is the status write alone, so that another
		// writer of the set, however busy, leaves it a window.
		return false, nil
	}
	to, placed, err := rec.rebase(ctx, report, c)
	if err != nil {
		return true, err
	}
	if equality.Semantic.DeepEqual(rec.stored, to) {
		return true, nil
	}
	rec.addHistory(to)
	*w = statusWrite{to: to, placed: placed}
	return false, nil
}

// writeStatus saves the chunks w keeps the members in, unless an earlier
// try saved them, writes its status, and collects the chunks nothing names
// any more.
func (rec *record) writeStatus(ctx context.Context, w *statusWrite) error {
	before := rec.stored.Inventory
	writing := time.Now()
	if !w.saved {
		if err := rec.saveChunks(ctx, w.placed); err != nil {
			return err
		}
		w.saved = true
		rec.r.timed(ctx, "chunks", time.Since(writing))
	}
	writing = time.Now()
	if err := rec.patchStatus(ctx, w.to); err != nil {
		return err
	}
	rec.r.timed(ctx, "status", time.Since(writing))
	rec.collect(ctx, before)
	return nil
}

// unwritten is the error of a status never written: none when the set is
// gone, RecordConflict when it changed under every try.
func (rec *record) unwritten(ctx context.Context, err error) error {
	switch {
	case apierrors.IsNotFound(err) || errors.Is(err, errReplaced):
		return nil
	case apierrors.IsConflict(err):
		return rec.conflicted(ctx, err)
	}
	return fmt.Errorf("writing status: %w", err)
}

// transient reports whether a write that failed with err may go through
// if tried again: it had no answer (the connection refused or cut, a
// timeout), or one that says to try later.
func transient(err error) bool {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
			apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err)
	}
	var netErr net.Error
	return utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) || errors.As(err, &netErr)
}

// rebase is the status to write over the one stored, and where it keeps
// its members: the report, unless a run of a newer generation reported
// since; the approvals spent, whichever counts more; and the record as
// stored with the run's changes carried onto it (inventory.Rebase).
// Stored is what the run read until a write finds otherwise.
func (rec *record) rebase(ctx context.Context, report *applyv1alpha1.ApplySetStatus, c changes) (
	*applyv1alpha1.ApplySetStatus, *inventory.Placed, error) {
	to := rebaseReport(rec.stored, report, rec.set.GetGeneration())
	switch {
	case !c.records() || rec.read == nil:
		return to, nil, nil
	case !rec.moved:
		placed := c.placed.Named(rec.stored.Inventory, nonce())
		setRecord(to, *c.next, placed)
		return to, &placed, nil
	}
	// A chunk missing here may be one the next writer collected: the
	// write's precondition then fails, and the next try reads again.
	stored, lost, _, _, err := rec.r.loadInventory(ctx, rec.set, rec.stored)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the set's inventory as stored: %w", err)
	}
	merged := inventory.Rebase(*rec.read, *c.next, *stored)
	placed, reason, err := rec.r.place(rec.set, merged)
	if err != nil {
		// What the run's changes add up to no longer fits: the record stays
		// as stored, and the next run, reading it, stops with the reason.
		log.FromContext(ctx).Error(err, "The set's record cannot hold its members", "reason", reason)
		return to, nil, nil
	}
	placed.Lost = lost
	placed = placed.Named(rec.stored.Inventory, nonce())
	setRecord(to, merged, placed)
	return to, &placed, nil
}

// nonce tells apart the chunks of one write of status from any other's.
func nonce() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail
	}
	return hex.EncodeToString(b)
}

// rebaseReport is report written over stored: what a reconcile of
// generation found, unless stored was reported by a reconcile of a newer
// generation since, whose report then stays. Approvals are counted, never
// uncounted, and the record (members, chunks, their count and kinds) and
// the history are stored's, for the caller to carry the run's changes onto.
func rebaseReport(stored, report *applyv1alpha1.ApplySetStatus, generation int64) *applyv1alpha1.ApplySetStatus {
	to := report.DeepCopy()
	if reportedGeneration(stored) > generation {
		to = stored.DeepCopy()
	}
	if approvalSequence(stored) > approvalSequence(to) {
		to.Approval = stored.Approval.DeepCopy()
	}
	to.Members, to.Inventory, to.MemberCount, to.GroupKinds = stored.Members, stored.Inventory, stored.MemberCount, stored.GroupKinds
	to.History = stored.History // the run's entry is added once it writes
	return to
}

// reportedGeneration is the newest generation status reports on.
func reportedGeneration(status *applyv1alpha1.ApplySetStatus) int64 {
	generation := status.ObservedGeneration
	if ready := readyOf(status); ready != nil {
		generation = max(generation, ready.ObservedGeneration)
	}
	return generation
}

// saveChunks writes the chunks placed keeps the members in, before the
// status that names them.
func (rec *record) saveChunks(ctx context.Context, placed *inventory.Placed) error {
	if placed == nil || placed.Status == nil {
		return nil
	}
	gvk, err := rec.r.gvk()
	if err != nil {
		return err
	}
	owner := metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: rec.set.GetName(), UID: rec.set.GetUID(),
		Controller: ptr.To(true)}
	written, err := inventory.Save(ctx, rec.r.client, ptr.Deref(rec.stored.Inventory, applyv1alpha1.InventoryStatus{}), *placed, owner)
	rec.saved = append(rec.saved, written...)
	rec.savedIn = placed.Status.Namespace
	return err
}

// collect deletes the chunks that before named, or that were saved for a
// status never written, and that the status written does not name; and
// the strays older than strayAge, whose writer is long gone: a younger one
// may be another writer's, saved for the status it is about to write.
func (rec *record) collect(ctx context.Context, before *applyv1alpha1.InventoryStatus) {
	b := ptr.Deref(before, applyv1alpha1.InventoryStatus{})
	namespace := cmp.Or(b.Namespace, rec.savedIn)
	if namespace == "" {
		return
	}
	unnamed := rec.saved
	for _, s := range rec.strays {
		if rec.r.now().Sub(s.Created) > strayAge {
			unnamed = append(unnamed, s.Name)
		}
	}
	if err := inventory.Collect(ctx, rec.r.client, namespace, b.Chunks, unnamed, rec.stored.Inventory); err != nil {
		// They prove nothing status does not name: left, they cost only room,
		// and go with the set.
		log.FromContext(ctx).Error(err, "Deleting chunks of the set's old inventory")
	}
	rec.saved, rec.strays = nil, nil
}

// strayAge is how old a chunk no status names must be to be collected: far
// longer than a writer takes from saving its chunks to writing its status.
const strayAge = 10 * time.Minute

// conflicted says that the record could not be written: every try found
// the set changed again. It tells with a Warning Event and, where one more
// write of the condition alone goes through, with Ready's reason; the next
// reconcile reads the set from the API server and records its members
// again as it applies them.
func (rec *record) conflicted(ctx context.Context, err error) error {
	rec.r.unsure(rec.set)
	msg := fmt.Sprintf("The set's status changed under each of %d writes of what this reconcile did (another writer, or a replica "+
		"or shard taking the set over); the next reconcile reads the set from the API server and records again what it applies: %v",
		maxRecordTries, err)
	rec.r.event(ctx, rec.set, "Warning", applyv1alpha1.ReasonRecordConflict, "Record", "%s", text.Truncate(msg, maxEventMessage))
	if _, liveErr := rec.live(ctx); liveErr == nil && reportedGeneration(rec.stored) <= rec.set.GetGeneration() {
		to := rec.stored.DeepCopy()
		setCondition(to, rec.set.GetGeneration(), applyv1alpha1.ConditionReady, metav1.ConditionFalse, applyv1alpha1.ReasonRecordConflict,
			text.Truncate(msg, maxConditionMessage))
		if err := rec.patchStatus(ctx, to); err != nil {
			log.FromContext(ctx).Info("The set's status changed again; only the Event tells of the conflict", "error", err.Error())
		}
	}
	return fmt.Errorf("%s: %w", applyv1alpha1.ReasonRecordConflict, err)
}

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

package parents

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// OrphanPolicy says what happens to members whose parent does not exist.
type OrphanPolicy string

const (
	// OrphanReport raises a Warning Event on each orphan and counts it.
	OrphanReport OrphanPolicy = "report"
	// OrphanDelete also deletes orphans after the grace period.
	OrphanDelete OrphanPolicy = "delete"
)

// Reasons of orphan Events.
const (
	ReasonOrphanFound   = "OrphanFound"
	ReasonOrphanDeleted = "OrphanDeleted"
	ReasonOrphanKept    = "OrphanKept"
)

// OrphanReconciler looks at one set ID per request: when objects claim it and no
// parent carries it, they are orphans.
type OrphanReconciler struct {
	Metadata    metadata.Interface
	Parents     *membership.Parents
	Index       *membership.Index
	Recorder    events.EventRecorder
	Policy      OrphanPolicy
	GracePeriod time.Duration
	// Appliers are the field managers whose applies of the part-of label make
	// an orphan one the delete policy may collect.
	Appliers sets.Set[string]
	// Kept are the field managers whose orphans are never collected: the
	// operator's own. Its sets decide about their members when they are
	// deleted, and one that left its members (suspended, previewing, or the
	// operator being uninstalled) left them on purpose.
	Kept sets.Set[string]
	// DeleteAs gives the client an orphan of a namespace is deleted with:
	// acting as that namespace's ServiceAccount that sets naming none act as,
	// so that a label nobody proves costs no more than that account may do.
	// nil deletes none.
	DeleteAs func(namespace string) (metadata.Interface, string, error)
	// Clock tells the time grace periods are judged by; the system's when nil.
	Clock clock.PassiveClock

	mu        sync.Mutex
	firstSeen map[string]time.Time
	counts    map[string]int
}

// Reconcile reports, and under the delete policy collects, the orphans of a set.
func (r *OrphanReconciler) Reconcile(ctx context.Context, setID string) (reconcile.Result, error) {
	indexState, parentState := r.Index.SyncState(), r.Parents.SyncState()
	if !indexState.Listed || !parentState.Listed {
		return reconcile.Result{RequeueAfter: syncWait}, nil
	}
	members := r.Index.Members(setID)
	if len(members) == 0 || len(r.Parents.ParentsOf(setID)) > 0 {
		r.forget(setID)
		return reconcile.Result{}, nil
	}

	now := r.now()
	first, reported := r.seen(setID, now, len(members))
	if !reported {
		for _, m := range members {
			r.Recorder.Eventf(memberRef(m), nil, "Warning", ReasonOrphanFound, "Verify",
				"Claims ApplySet %s, whose parent does not exist; delete the object or its %s label",
				setID, applyset.PartOfLabel)
		}
	}
	if r.Policy != OrphanDelete {
		return reconcile.Result{}, nil
	}
	if wait := first.Add(r.GracePeriod).Sub(now); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	if failing := append(indexState.Failing, parentState.Failing...); len(failing) > 0 {
		// The parent may be of a type that cannot be listed: deleting now
		// could delete a member of a set that exists. Try again later.
		log.FromContext(ctx).Info("Not collecting orphans while some types cannot be listed",
			"set", setID, "resource", failing[0].Resource.String(), "error", failing[0].Err.Error())
		return reconcile.Result{RequeueAfter: max(r.GracePeriod, time.Minute)}, nil
	}
	return reconcile.Result{}, r.collect(ctx, setID, members)
}

// collect deletes the orphans that no other object owns, each only if it is
// still the very object that was judged (UID and resourceVersion preconditions):
// one re-adopted or changed meanwhile is kept. An orphan has no inventory to
// prove it a member, only a label anyone who may patch it could have
// applied, so none is deleted with the operator's rights: a namespaced one
// as its namespace's default ServiceAccount, a cluster-scoped one never (a
// Namespace or CRD would take what others made with it).
func (r *OrphanReconciler) collect(ctx context.Context, setID string, members []membership.Member) error {
	logger := log.FromContext(ctx)
	var errs []error
	for _, m := range members {
		if m.Namespace == "" {
			r.Recorder.Eventf(memberRef(m), nil, "Normal", ReasonOrphanKept, "Collect",
				"Not deleted: cluster-scoped orphans are never collected, since a label proves no membership and deleting a "+
					"Namespace or CRD takes what others made with it; delete it yourself if it is no longer used")
			continue
		}
		if len(m.OwnerReferences) > 0 {
			r.Recorder.Eventf(memberRef(m), nil, "Normal", ReasonOrphanKept, "Collect",
				"Not deleted: owned by %s %s, whose garbage collection decides", m.OwnerReferences[0].Kind, m.OwnerReferences[0].Name)
			continue
		}
		if slices.ContainsFunc(m.PartOfAppliedBy, r.Kept.Has) {
			r.Recorder.Eventf(memberRef(m), nil, "Normal", ReasonOrphanKept, "Collect",
				"Not deleted: its %s label was applied by %s, whose set kept its members when it was deleted",
				applyset.PartOfLabel, strings.Join(sets.List(r.Kept), ", "))
			continue
		}
		if !slices.ContainsFunc(m.PartOfAppliedBy, r.Appliers.Has) {
			r.Recorder.Eventf(memberRef(m), nil, "Normal", ReasonOrphanKept, "Collect",
				"Not deleted: its %s label was not written by an apply of a known tool (%s), so anyone who may update it "+
					"could have set it", applyset.PartOfLabel, strings.Join(sets.List(r.Appliers), ", "))
			continue
		}
		if r.DeleteAs == nil {
			r.Recorder.Eventf(memberRef(m), nil, "Normal", ReasonOrphanKept, "Collect",
				"Not deleted: the operator has no ServiceAccount to delete orphans as (its --default-service-account is empty)")
			continue
		}
		deleter, who, err := r.DeleteAs(m.Namespace)
		if err != nil {
			errs = append(errs, fmt.Errorf("deleting orphan %s: %w", m.String(), err))
			continue
		}
		uid, rv := m.UID, m.ResourceVersion
		err = deleter.Resource(m.Resource).Namespace(m.Namespace).Delete(ctx, m.Name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv},
		})
		switch {
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
			logger.Info("Orphan changed or went away before deletion; kept", "member", m.String())
		case apierrors.IsForbidden(err):
			r.Recorder.Eventf(memberRef(m), nil, "Warning", ReasonOrphanKept, "Collect",
				"Not deleted: orphans are deleted as %s, which may not delete it; grant it delete, or delete it yourself", who)
		case err != nil:
			errs = append(errs, fmt.Errorf("deleting orphan %s: %w", m.String(), err))
		default:
			orphansDeleted.Inc()
			r.Recorder.Eventf(memberRef(m), nil, "Normal", ReasonOrphanDeleted, "Collect",
				"Deleted: it claimed ApplySet %s, whose parent did not exist for %s", setID, r.GracePeriod)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("collecting orphans of %s: %v", setID, errs)
	}
	return nil
}

func (r *OrphanReconciler) now() time.Time {
	if r.Clock != nil {
		return r.Clock.Now()
	}
	return time.Now()
}

// seen records the set as orphaned and returns when it was first seen so, and
// whether its orphans were already reported.
func (r *OrphanReconciler) seen(setID string, now time.Time, count int) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstSeen == nil {
		r.firstSeen, r.counts = map[string]time.Time{}, map[string]int{}
	}
	first, reported := r.firstSeen[setID]
	if !reported {
		first = now
		r.firstSeen[setID] = now
	}
	r.counts[setID] = count
	r.publish()
	return first, reported
}

func (r *OrphanReconciler) forget(setID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.firstSeen, setID)
	delete(r.counts, setID)
	r.publish()
}

func (r *OrphanReconciler) publish() {
	total := 0
	for _, n := range r.counts {
		total += n
	}
	orphansGauge.Set(float64(total))
}

// memberRef is an object reference for Events about a member.
func memberRef(m membership.Member) *metav1.PartialObjectMetadata {
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion,
	}}
	obj.SetGroupVersionKind(m.Resource.GroupVersion().WithKind(m.GroupKind.Kind))
	return obj
}

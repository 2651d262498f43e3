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

package replicas

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// staleAfter is StaleAfter, or its default when zero, and never shorter
// than LeaseDuration+Margin, after which a set naming the Lease's replica
// may be taken over anyway.
func (t Timing) staleAfter() time.Duration {
	if t.StaleAfter == 0 {
		return max(time.Hour, 20*t.LeaseDuration)
	}
	return max(t.StaleAfter, t.LeaseDuration+t.Margin)
}

// collect deletes the Leases of other replicas that this replica saw
// unchanged for staleAfter: released, fenced, or held by a replica that
// stopped renewing, as Pods that are gone leave them. Replica names are Pod
// names, so without this every Pod ever run would leave a Lease behind.
//
// It is safe because a Lease that is missing ends no term sooner than one
// that is unchanged: ownership.Decide takes over a set naming it only
// after seeing it missing for LeaseDuration+Margin, as it fences an
// unchanged one. The delete is conditioned on the version seen, so a Lease
// renewed or taken meanwhile stays; a replica whose Lease went anyway
// ends its term and creates a new one (renew). Only a replica holding its
// term collects, so a partitioned one does nothing; several may try at
// once, and all but one get a Conflict or NotFound.
func (m *Roster) collect(ctx context.Context) {
	work, _, done, ok := m.Enter(ctx)
	if !ok {
		return
	}
	defer done()
	type stale struct {
		name, resourceVersion string
		age                   time.Duration
	}
	var leases []stale
	now := time.Now()
	m.mu.Lock()
	for name, o := range m.observed {
		age := now.Sub(o.lease.Since)
		switch {
		case name == m.Replica || age < m.Timing.staleAfter():
		case o.lease.Missing:
			// Forgotten, a Lease counts as missing since this replica
			// started, which is longer still: Decide answers the same.
			delete(m.observed, name)
		default:
			leases = append(leases, stale{name: name, resourceVersion: o.resourceVersion, age: age})
		}
	}
	m.mu.Unlock()
	for _, l := range leases {
		m.deleteLease(work, l.name, l.resourceVersion, l.age)
	}
}

// deleteLease deletes a replica's Lease if it is still the version seen.
func (m *Roster) deleteLease(ctx context.Context, name, resourceVersion string, age time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, m.Timing.RetryPeriod)
	defer cancel()
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace, Name: leasePrefix + name}}
	err := m.Writer.Delete(ctx, lease, client.Preconditions{ResourceVersion: &resourceVersion})
	switch {
	case err == nil:
		log.Log.WithName("replicas").Info("Replica Lease collected", "replica", name, "age", age.Round(time.Second).String())
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		// Renewed or taken since it was seen, or another replica collected it.
	default:
		log.FromContext(ctx).V(1).Info("Collecting a replica Lease failed", "replica", name, "error", err.Error())
	}
}

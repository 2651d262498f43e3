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
	"errors"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/applyset-operator/applyset-operator/internal/claims"
)

// observe lists the replicas' Leases and records, on this replica's clock,
// when each version was first seen.
func (m *Roster) observe(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, m.Timing.RetryPeriod)
	defer cancel()
	leases := &coordinationv1.LeaseList{}
	if err := m.Reader.List(ctx, leases, client.InNamespace(m.Namespace), client.HasLabels{ReplicaLabel}); err != nil {
		log.FromContext(ctx).V(1).Info("Listing the replica Leases failed", "error", err.Error())
		return
	}
	now := time.Now()
	m.mu.Lock()
	seen := map[string]bool{}
	for i := range leases.Items {
		l := &leases.Items[i]
		name := l.Labels[ReplicaLabel]
		if name == "" || l.Name != leasePrefix+name {
			continue
		}
		seen[name] = true
		m.record(name, l, now)
	}
	for name, o := range m.observed {
		if !seen[name] && !o.lease.Missing {
			m.observed[name] = observation{lease: claims.Lease{Replica: name, Missing: true, Since: now}}
		}
	}
	live := m.viewLocked(now).Live()
	changed := !slices.Equal(live, m.live)
	m.live = live
	callbacks := slices.Clone(m.onChange)
	m.mu.Unlock()
	if changed {
		for _, f := range callbacks {
			f()
		}
	}
}

func (m *Roster) record(name string, l *coordinationv1.Lease, now time.Time) {
	if o, ok := m.observed[name]; ok && o.resourceVersion == l.ResourceVersion {
		return
	}
	m.observed[name] = observation{resourceVersion: l.ResourceVersion, lease: claims.Lease{
		Replica: name, Term: int64(ptr.Deref(l.Spec.LeaseTransitions, 0)),
		Held: ptr.Deref(l.Spec.HolderIdentity, "") == name, Since: now,
	}}
}

// Fence ends the term of another replica whose Lease this replica saw
// unchanged for LeaseDuration+Margin: it clears the holder and raises the
// term, on condition that the Lease is still the version it saw, so that
// the replica, should it come back, cannot renew that term.
func (m *Roster) Fence(ctx context.Context, fenced claims.Lease) error {
	m.mu.Lock()
	o, ok := m.observed[fenced.Replica]
	now := time.Now()
	m.mu.Unlock()
	if !ok || o.lease != fenced || now.Sub(o.lease.Since) < m.Timing.LeaseDuration+m.Timing.Margin {
		return errNotFenceable
	}
	lease := &coordinationv1.Lease{}
	lease.Namespace, lease.Name, lease.ResourceVersion = m.Namespace, leasePrefix+fenced.Replica, o.resourceVersion
	lease.Labels = map[string]string{ReplicaLabel: fenced.Replica}
	lease.Spec = coordinationv1.LeaseSpec{HolderIdentity: ptr.To(""), LeaseTransitions: ptr.To(int32(fenced.Term + 1))}
	if err := m.Writer.Update(ctx, lease); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.record(fenced.Replica, lease, time.Now())
	return nil
}

// errNotFenceable: the Lease changed, or was seen unchanged for too short.
var errNotFenceable = errors.New("the Lease changed, or was not seen unchanged for long enough, since the decision")

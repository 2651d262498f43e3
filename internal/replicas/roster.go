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

// Package replicas runs the ApplySet reconcilers on every replica of the
// operator at once (--replica-sharding): each replica holds a Lease of its
// own (roster.go), and a set is reconciled only by the replica it
// names, which hands it over through the set itself (gate.go). The
// decisions are internal/claims's; docs/architecture.md has the protocol.
package replicas

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/applyset-operator/applyset-operator/internal/claims"
)

const (
	// leasePrefix starts the name of each replica's Lease.
	leasePrefix = "applyset-operator-replica-"
	// ReplicaLabel is on each replica's Lease and holds the replica's name.
	ReplicaLabel = "apply.applyset.dev/replica"
)

// Timing is the Lease's clock, as client-go's leader election has it:
// RenewDeadline < LeaseDuration, so a replica that fails to renew stops
// before any other may end its term.
type Timing struct {
	LeaseDuration, RenewDeadline, RetryPeriod, Margin time.Duration
	// StaleAfter is how long another replica's Lease must go unchanged
	// before it is deleted (collect.go); zero is max(1h, 20×LeaseDuration).
	StaleAfter time.Duration
}

// DefaultTiming is client-go's leader election timing, with a margin of a
// third of the lease for requests in flight and clock rates; a Lease is
// collected after the default StaleAfter, an hour unchanged.
var DefaultTiming = Timing{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second,
	RetryPeriod: 2 * time.Second, Margin: 5 * time.Second}

// errTermEnded cancels the work of a term that ended.
var errTermEnded = errors.New("this replica's Lease term ended: another replica may own the set now")

// Roster holds this replica's Lease and observes the others'. It is a
// manager Runnable that runs on every replica, not only the leader.
type Roster struct {
	// Reader reads Leases live, Writer writes them.
	Reader    client.Reader
	Writer    client.Writer
	Namespace string
	Replica   string
	Timing    Timing
	// KeepOnStop leaves the Lease held when the replica stops, as a replica
	// that crashed does; tests use it.
	KeepOnStop bool

	mu         sync.Mutex
	term       claims.Holder // zero while no term is held
	validUntil time.Time
	termCtx    context.Context
	endTerm    context.CancelCauseFunc
	written    string // resourceVersion of the Lease as this replica last wrote it
	lastTerm   int64
	observed   map[string]observation
	started    time.Time
	live       []string
	onChange   []func()
	inflight   sync.WaitGroup
	lapseTimer *time.Timer
}

type observation struct {
	resourceVersion string
	lease           claims.Lease
}

// NeedLeaderElection is false: every replica holds its own Lease.
func (m *Roster) NeedLeaderElection() bool { return false }

// Start renews the Lease and observes the others' until ctx ends, then
// ends the term, waits for the work in flight and releases the Lease.
func (m *Roster) Start(ctx context.Context) error {
	m.mu.Lock()
	m.started, m.observed = time.Now(), map[string]observation{}
	m.mu.Unlock()
	for {
		m.renew(ctx)
		m.observe(ctx)
		m.collect(ctx)
		select {
		case <-ctx.Done():
			m.stop()
			return nil
		case <-time.After(m.Timing.RetryPeriod):
		}
	}
}

// OnChange calls f whenever the live replicas or this replica's term change.
func (m *Roster) OnChange(f func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.onChange = append(m.onChange, f)
}

// View is this replica's picture of the replicas now.
func (m *Roster) View() claims.View {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.viewLocked(time.Now())
}

func (m *Roster) viewLocked(now time.Time) claims.View {
	v := claims.View{Leases: make(map[string]claims.Lease, len(m.observed)), Started: m.started, Now: now,
		LeaseDuration: m.Timing.LeaseDuration, Margin: m.Timing.Margin}
	if m.holdingLocked(now) {
		v.Self = m.term
	}
	for name, o := range m.observed {
		v.Leases[name] = o.lease
	}
	return v
}

func (m *Roster) holdingLocked(now time.Time) bool {
	return !m.term.IsZero() && now.Before(m.validUntil) && m.termCtx.Err() == nil
}

// Enter starts a piece of work under the current term: its context ends
// with the term. ok is false when no term is held.
func (m *Roster) Enter(ctx context.Context) (_ context.Context, term claims.Holder, done func(), ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.holdingLocked(time.Now()) {
		return ctx, claims.Holder{}, nil, false
	}
	work, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(m.termCtx, func() { cancel(errTermEnded) })
	m.inflight.Add(1)
	return work, m.term, func() {
		stop()
		cancel(nil)
		m.inflight.Done()
	}, true
}

// Holds reports whether term is this replica's and still held.
func (m *Roster) Holds(term claims.Holder) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.term == term && m.holdingLocked(time.Now())
}

// renew extends the term, or takes a new one when none is held and the
// Lease may be taken.
func (m *Roster) renew(ctx context.Context) {
	sent := time.Now()
	m.mu.Lock()
	timeout := m.Timing.RetryPeriod
	if m.holdingLocked(sent) {
		timeout = min(timeout, m.validUntil.Sub(sent))
	}
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	lease := &coordinationv1.Lease{}
	err := m.Reader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: leasePrefix + m.Replica}, lease)
	switch {
	case apierrors.IsNotFound(err):
		m.end("its Lease is gone")
		m.create(ctx, sent)
		return
	case err != nil:
		m.lapse(sent)
		return
	}
	m.mu.Lock()
	mine := ptr.Deref(lease.Spec.HolderIdentity, "") == m.Replica && lease.ResourceVersion == m.written
	renewing := mine && m.holdingLocked(sent) && int64(ptr.Deref(lease.Spec.LeaseTransitions, 0)) == m.term.Term
	m.mu.Unlock()
	if !renewing {
		m.end("its Lease was fenced, released or lapsed")
		if !mine && ptr.Deref(lease.Spec.HolderIdentity, "") != "" && !m.unchangedLongEnough(lease, sent) {
			return // another process under this name, or one that just stopped: wait
		}
		lease.Spec.LeaseTransitions = ptr.To(ptr.Deref(lease.Spec.LeaseTransitions, 0) + 1)
		lease.Spec.AcquireTime = &metav1.MicroTime{Time: sent}
	}
	lease.Spec.HolderIdentity = ptr.To(m.Replica)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32(m.Timing.LeaseDuration / time.Second))
	lease.Spec.RenewTime = &metav1.MicroTime{Time: sent}
	if err := m.Writer.Update(ctx, lease); err != nil {
		log.FromContext(ctx).V(1).Info("Renewing the replica Lease failed", "error", err.Error())
		m.lapse(sent)
		return
	}
	m.held(lease, sent, !renewing)
}

func (m *Roster) create(ctx context.Context, sent time.Time) {
	m.mu.Lock()
	next := m.lastTerm + 1
	m.mu.Unlock()
	lease := &coordinationv1.Lease{}
	lease.Namespace, lease.Name = m.Namespace, leasePrefix+m.Replica
	lease.Labels = map[string]string{ReplicaLabel: m.Replica}
	lease.Spec = coordinationv1.LeaseSpec{HolderIdentity: ptr.To(m.Replica), LeaseTransitions: ptr.To(int32(next)),
		LeaseDurationSeconds: ptr.To(int32(m.Timing.LeaseDuration / time.Second)),
		AcquireTime:          &metav1.MicroTime{Time: sent}, RenewTime: &metav1.MicroTime{Time: sent}}
	if err := m.Writer.Create(ctx, lease); err != nil {
		log.FromContext(ctx).V(1).Info("Creating the replica Lease failed", "error", err.Error())
		return
	}
	m.held(lease, sent, true)
}

// unchangedLongEnough reports whether this replica saw its own Lease
// unchanged for LeaseDuration+Margin: whoever held it under this name has
// stopped acting.
func (m *Roster) unchangedLongEnough(lease *coordinationv1.Lease, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, seen := m.observed[m.Replica]
	return seen && o.resourceVersion == lease.ResourceVersion &&
		now.Sub(o.lease.Since) >= m.Timing.LeaseDuration+m.Timing.Margin
}

// held records a renewal sent at sent, or a new term.
func (m *Roster) held(lease *coordinationv1.Lease, sent time.Time, newTerm bool) {
	m.mu.Lock()
	m.written = lease.ResourceVersion
	m.validUntil = sent.Add(m.Timing.RenewDeadline)
	if m.lapseTimer != nil {
		m.lapseTimer.Stop()
	}
	m.lapseTimer = time.AfterFunc(time.Until(m.validUntil), func() { m.lapse(time.Now()) })
	if newTerm {
		m.term = claims.Holder{Replica: m.Replica, Term: int64(ptr.Deref(lease.Spec.LeaseTransitions, 0))}
		m.lastTerm = m.term.Term
		m.termCtx, m.endTerm = context.WithCancelCause(context.Background())
	}
	callbacks := slices.Clone(m.onChange)
	m.mu.Unlock()
	if newTerm {
		for _, f := range callbacks {
			f()
		}
	}
}

// lapse ends the term once its renew deadline passed.
func (m *Roster) lapse(now time.Time) {
	m.mu.Lock()
	gone := !m.term.IsZero() && !now.Before(m.validUntil)
	m.mu.Unlock()
	if gone {
		m.end("its Lease was not renewed within the renew deadline")
	}
}

// end ends the term: no work starts, the work in flight is cancelled.
func (m *Roster) end(why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.term.IsZero() {
		return
	}
	log.Log.WithName("replicas").Info("Replica stops acting on its sets", "replica", m.Replica, "term", m.term.Term, "reason", why)
	m.endTerm(errTermEnded)
	m.term = claims.Holder{}
}

// stop ends the term, waits for the work in flight and releases the Lease
// so that the other replicas take the sets at once.
func (m *Roster) stop() {
	m.end("the replica is stopping")
	ctx, cancel := context.WithTimeout(context.Background(), m.Timing.LeaseDuration)
	defer cancel()
	waited := make(chan struct{})
	go func() { m.inflight.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		return // work still in flight: the Lease lapses instead
	}
	if m.KeepOnStop {
		return
	}
	lease := &coordinationv1.Lease{}
	if err := m.Reader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: leasePrefix + m.Replica}, lease); err != nil {
		return
	}
	m.mu.Lock()
	mine := lease.ResourceVersion == m.written
	m.mu.Unlock()
	if !mine {
		return
	}
	lease.Spec.HolderIdentity = ptr.To("")
	lease.Spec.LeaseTransitions = ptr.To(ptr.Deref(lease.Spec.LeaseTransitions, 0) + 1)
	if err := m.Writer.Update(ctx, lease); err != nil {
		log.Log.WithName("replicas").Info("Releasing the replica Lease failed; it lapses instead", "error", err.Error())
	}
}

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
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/internal/metrics"
)

var (
	parentsGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "applyset_operator_parents",
		Help: "ApplySet parents by the tooling that manages them and the findings about their contract: " +
			"state clean (none), problem (some) or untrusted (an ID not its own). It says nothing of the members' health.",
	}, []string{"tooling", "state"})
	membersGauge = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "applyset_operator_members",
		Help: "Objects that claim a set whose parent's ID is its own.",
	})
	hintResyncs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "applyset_operator_hint_resyncs_total",
		Help: "Writes of the contains-group-kinds hint to parents, by tooling.",
	}, []string{"tooling"})
	orphansGauge = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "applyset_operator_orphans",
		Help: "Objects that claim a set whose parent does not exist.",
	})
	orphansDeleted = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "applyset_operator_orphans_deleted_total",
		Help: "Orphaned members deleted under --orphan-policy=delete.",
	})
	unlistableGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "applyset_operator_unlistable_resources",
		Help: "Resource types whose parents or members cannot be listed (1 while so); findings about them are incomplete.",
	}, []string{"resource"})
	reconcileDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "applyset_operator_parent_reconcile_duration_seconds",
		Help:    "Time to verify one parent.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 4, 8),
	})
)

func init() {
	metrics.MustRegister(parentsGauge, membersGauge, hintResyncs, orphansGauge, orphansDeleted, unlistableGauge, reconcileDuration)
}

// parentStates keeps the last verdict of every parent so that the gauges count
// parents, not reconciles.
type parentStates struct {
	mu     sync.Mutex
	states map[membership.ParentRef]parentState
}

type parentState struct {
	tooling string
	state   string
	members int
}

func (s *parentStates) set(req membership.ParentRef, st parentState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.states == nil {
		s.states = map[membership.ParentRef]parentState{}
	}
	s.states[req] = st
	s.publish()
}

func (s *parentStates) forget(req membership.ParentRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.states, req)
	s.publish()
}

func (s *parentStates) publish() {
	parentsGauge.Reset()
	members := 0
	for _, st := range s.states {
		parentsGauge.WithLabelValues(st.tooling, st.state).Inc()
		members += st.members
	}
	membersGauge.Set(float64(members))
}

// unlistable remembers the types last published, to log only changes.
var unlistable struct {
	sync.Mutex
	last string
}

// publishUnlistable sets the gauge of the types that cannot be listed, and
// logs when they change.
func publishUnlistable(log logr.Logger, failing ...[]membership.TypeFailure) {
	var names []string
	for _, list := range failing {
		for _, f := range list {
			names = append(names, f.Resource.String()+": "+f.Err.Error())
		}
	}
	summary := strings.Join(names, "; ")
	unlistable.Lock()
	defer unlistable.Unlock()
	if summary == unlistable.last {
		return
	}
	unlistable.last = summary
	unlistableGauge.Reset()
	for _, list := range failing {
		for _, f := range list {
			unlistableGauge.WithLabelValues(f.Resource.String()).Set(1)
		}
	}
	if summary == "" {
		log.Info("Every resource type lists again; verification is complete")
		return
	}
	log.Info("Verifying without resource types that cannot be listed; findings about them are incomplete", "types", summary)
}

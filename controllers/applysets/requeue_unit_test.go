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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// readyFalse is a set whose Ready condition turned False for reason, ago.
func readyFalse(reason string, now time.Time, ago time.Duration) *applyv1alpha1.ApplySet {
	set := &applyv1alpha1.ApplySet{}
	set.Status.Conditions = []metav1.Condition{{Type: applyv1alpha1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: reason, LastTransitionTime: metav1.NewTime(now.Add(-ago))}}
	return set
}

// TestResultBacksOff checks that no wait looks again every two seconds for
// ever: a member whose finalizer never clears must not make a large set
// reconcile without pause.
func TestResultBacksOff(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	pruneWaits := apply.ChangeSet{Changes: []apply.Change{{Action: apply.Waiting, Reason: "waiting for its finalizers"}}}
	tests := []struct {
		name     string
		set      *applyv1alpha1.ApplySet
		min, max time.Duration
	}{
		{"a prune that just began to wait looks again soon",
			readyFalse(applyv1alpha1.ReasonPruning, now, 0), 2 * time.Second, 3 * time.Second},
		{"a prune that waited a minute looks again less often",
			readyFalse(applyv1alpha1.ReasonPruning, now, time.Minute), 20 * time.Second, 23 * time.Second},
		{"a prune that waited an hour looks again every half minute",
			readyFalse(applyv1alpha1.ReasonPruning, now, time.Hour), 30 * time.Second, 33 * time.Second},
		{"a prune that follows another wait counts that wait too",
			readyFalse(applyv1alpha1.ReasonProgressing, now, time.Hour), 30 * time.Second, 33 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Reconciler{}
			setConditions(&tt.set.Status, 0, outcome{pruned: pruneWaits, now: now})
			if got := readyOf(&tt.set.Status).Reason; got != applyv1alpha1.ReasonPruning {
				t.Fatalf("Ready reason of a prune that waits = %s, want %s", got, applyv1alpha1.ReasonPruning)
			}
			res, err := r.result(context.Background(), tt.set, outcome{pruned: pruneWaits, now: now})
			if err != nil {
				t.Fatal(err)
			}
			if res.RequeueAfter < tt.min || res.RequeueAfter > tt.max {
				t.Errorf("RequeueAfter = %s, want between %s and %s", res.RequeueAfter, tt.min, tt.max)
			}
		})
	}
}

// TestDeletionBacksOff checks the same of a deletion that waits for its
// members to go.
func TestDeletionBacksOff(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for ago, want := range map[time.Duration]time.Duration{0: 2 * time.Second, 10 * time.Minute: 30 * time.Second} {
		r := &Reconciler{clock: clocktesting.NewFakePassiveClock(now)}
		set := readyFalse(applyv1alpha1.ReasonDeleting, now, ago)
		res, err := r.afterDeletion(context.Background(), &scope{set: set, del: deletion{waiting: "the Namespace team-a"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter < want || res.RequeueAfter > want+want/10 {
			t.Errorf("a deletion waiting %s looks again after %s, want %s (with jitter)", ago, res.RequeueAfter, want)
		}
	}
}

// TestIntervalFloor checks that spec.interval runs no faster than the
// operator's floor, which sets stored before it was raised obey too.
func TestIntervalFloor(t *testing.T) {
	tests := []struct {
		name     string
		floor    time.Duration
		interval *metav1.Duration
		want     time.Duration
	}{
		{"no interval is ten minutes", 0, nil, 10 * time.Minute},
		{"a nanosecond runs at the default floor", 0, &metav1.Duration{Duration: 1}, DefaultMinInterval},
		{"a second runs at the default floor", 0, &metav1.Duration{Duration: time.Second}, DefaultMinInterval},
		{"an hour is an hour", 0, &metav1.Duration{Duration: time.Hour}, time.Hour},
		{"a lowered floor lets a second through", time.Second, &metav1.Duration{Duration: time.Second}, time.Second},
		{"a floor above ten minutes holds a set with no interval too", time.Hour, nil, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Reconciler{opts: Options{MinInterval: tt.floor}}
			if got := r.interval(&applyv1alpha1.CommonSpec{Interval: tt.interval}); got != tt.want {
				t.Errorf("interval = %s, want %s", got, tt.want)
			}
			set := &applyv1alpha1.ApplySet{}
			set.Spec.Interval = tt.interval
			res, err := r.result(context.Background(), set, outcome{})
			if err != nil {
				t.Fatal(err)
			}
			if res.RequeueAfter < tt.want || res.RequeueAfter > tt.want+tt.want/10 {
				t.Errorf("a steady set looks again after %s, want %s (with jitter)", res.RequeueAfter, tt.want)
			}
		})
	}
}

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
	"errors"
	"slices"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// TestPolicyWritten checks which writes of admission policies wake held
// sets: a guard policy's or binding's creation and spec change, whatever
// prefix it was installed with; not its deletion, a change of its status or
// labels alone, nor another policy.
func TestPolicyWritten(t *testing.T) {
	policy := func(name string, generation int64) *admissionv1.ValidatingAdmissionPolicyBinding {
		return &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: generation}}
	}
	created := func(name string) bool { return policyWritten.Create(event.CreateEvent{Object: policy(name, 1)}) }
	updated := func(name string, from, to int64) bool {
		return policyWritten.Update(event.UpdateEvent{ObjectOld: policy(name, from), ObjectNew: policy(name, to)})
	}
	type write struct {
		name         string
		passed, want bool
	}
	tests := []write{
		{"a guard policy's binding created", created("applyset-approval"), true},
		{"one installed with a prefix", created("tenants-applyset-inventory"), true},
		{"its spec changed", updated("applyset-namespace-authority", 1, 2), true},
		{"its metadata alone changed", updated("applyset-namespace-authority", 2, 2), false},
		{"its deletion", policyWritten.Delete(event.DeleteEvent{Object: policy("applyset-approval", 1)}), false},
		{"another policy", created("featuregate-probe-dry-run-only"), false},
		{"a name that only begins like a guard policy", created("applyset-approval-probe"), false},
	}
	for _, name := range guardPolicies {
		tests = append(tests, write{"guard policy " + name + " created", created(name), true})
	}
	for _, tt := range tests {
		if tt.passed != tt.want {
			t.Errorf("%s: passed = %v, want %v", tt.name, tt.passed, tt.want)
		}
	}
}

// TestSetsHeldForPolicy checks that a written guard policy wakes exactly
// the sets held for one, and opens the window in which they look again soon.
func TestSetsHeldForPolicy(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	scheme := runtime.NewScheme()
	if err := applyv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	named := func(set *applyv1alpha1.ApplySet, name string) *applyv1alpha1.ApplySet {
		set.Namespace, set.Name = "team-a", name
		return set
	}
	ready := named(readyFalse(applyv1alpha1.ReasonSucceeded, now, 0), "ready")
	ready.Status.Conditions[0].Status = metav1.ConditionTrue
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		named(readyFalse(applyv1alpha1.ReasonApprovalNotEnforced, now, time.Hour), "approval"),
		named(readyFalse(applyv1alpha1.ReasonAuthorityNotEnforced, now, time.Minute), "authority"),
		named(readyFalse(applyv1alpha1.ReasonInventoryUnprotected, now, 0), "inventory"),
		named(readyFalse(applyv1alpha1.ReasonOutsideWindow, now, time.Hour), "window"),
		named(readyFalse(applyv1alpha1.ReasonProgressing, now, 0), "progressing"),
		named(&applyv1alpha1.ApplySet{}, "new"),
		ready,
	).Build()
	clk := clocktesting.NewFakePassiveClock(now)
	r := &Reconciler{client: c, newSetList: func() applyv1alpha1.SetList { return &applyv1alpha1.ApplySetList{} },
		policyWrites: &policyWrites{clock: clk}}

	if _, soon := r.policyRetry(stoppedFor(applyv1alpha1.ReasonApprovalNotEnforced)); soon {
		t.Fatal("a held set looks again soon though no guard policy was written")
	}
	var woken []string
	for _, req := range r.setsHeldForPolicy(context.Background(), nil) {
		woken = append(woken, req.Name)
	}
	slices.Sort(woken)
	if want := []string{"approval", "authority", "inventory"}; !slices.Equal(woken, want) {
		t.Errorf("woken %v, want %v", woken, want)
	}
	if _, soon := r.policyRetry(stoppedFor(applyv1alpha1.ReasonApprovalNotEnforced)); !soon {
		t.Error("a held set does not look again soon after a guard policy was written")
	}
}

// stoppedFor is the outcome of a set stopped for reason.
func stoppedFor(reason string) outcome {
	return failure(outcome{}, reason, false, errors.New("not in force"))
}

// TestPolicyRetry checks when a set held for a guard policy looks again
// while one was written a moment ago: within seconds at first, less often
// as the write recedes, and out of the window not at all (it backs off);
// nor does any other failure, or a set that is not held.
func TestPolicyRetry(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		o        outcome
		ago      time.Duration
		soon     bool
		min, max time.Duration
	}{
		{"held for approval, just written", stoppedFor(applyv1alpha1.ReasonApprovalNotEnforced), 0, true, 2 * time.Second, 3 * time.Second},
		{"held for authority, written 30s ago", stoppedFor(applyv1alpha1.ReasonAuthorityNotEnforced), 30 * time.Second, true, 10 * time.Second, 12 * time.Second},
		{"held for the inventory, written 59s ago", stoppedFor(applyv1alpha1.ReasonInventoryUnprotected), 59 * time.Second, true, 19 * time.Second, 22 * time.Second},
		{"held, written a minute ago", stoppedFor(applyv1alpha1.ReasonApprovalNotEnforced), time.Minute, false, 0, 0},
		{"another failure", stoppedFor(applyv1alpha1.ReasonArtifactUnavailable), 0, false, 0, 0},
		{"no failure", outcome{reason: applyv1alpha1.ReasonApprovalNotEnforced}, 0, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(now.Add(-tt.ago))
			r := &Reconciler{policyWrites: &policyWrites{clock: clk}}
			r.policyWrites.wrote()
			clk.SetTime(now)
			set := readyFalse(tt.o.reason, now, time.Hour)
			res, err := r.result(context.Background(), set, tt.o)
			switch {
			case tt.soon && (err != nil || res.RequeueAfter < tt.min || res.RequeueAfter > tt.max):
				t.Errorf("result = %+v, %v; want a look again after %s to %s", res, err, tt.min, tt.max)
			case !tt.soon && tt.o.err != nil && !errors.Is(err, tt.o.err):
				t.Errorf("result = %+v, %v; want the failure returned, to back off", res, err)
			case !tt.soon && tt.o.err == nil && err != nil:
				t.Errorf("result = %+v, %v; want no failure", res, err)
			}
		})
	}
}

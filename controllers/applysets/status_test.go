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
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/health"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestSetStatus(t *testing.T) {
	cm := func(name string) apply.ObjectRef {
		return apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "ns", Name: name}
	}
	applied := apply.ChangeSet{Changes: []apply.Change{
		{Ref: cm("a"), Action: apply.Created},
		{Ref: cm("b"), Action: apply.Configured, Fields: []string{".data.k"}},
		{Ref: cm("c"), Action: apply.Unchanged},
	}}
	pruned := apply.ChangeSet{Changes: []apply.Change{
		{Ref: cm("d"), Action: apply.Pruned},
		{Ref: cm("e"), Action: apply.Skipped, Reason: "it is owned by Thing x, not by the set's parent"},
	}}
	prunedAll := apply.ChangeSet{Changes: pruned.Changes[:1]}
	members := func(names ...string) *inventory.Inventory {
		var out []applyv1alpha1.Member
		for _, n := range names {
			out = append(out, applyv1alpha1.Member{ObjectReference: ref(cm(n)), UID: "uid-" + n})
		}
		inv := inventory.FromStatus(out)
		return &inv
	}
	foreign := []apply.Change{{Ref: cm("copied"), Action: apply.Foreign, Reason: "labelled by some-controller (Update); the set did not apply it",
		LabelledBy: []applyset.LabelWriter{{Manager: "some-controller", Operation: metav1.ManagedFieldsOperationUpdate}}}}
	tests := []struct {
		name           string
		o              outcome
		wantReady      metav1.ConditionStatus
		wantReason     string
		wantStalled    bool
		wantReconcile  bool
		wantObserved   bool
		wantMembers    int
		wantForeign    int32
		wantPlanDryRun bool
	}{
		{
			name: "a successful apply and prune",
			o: outcome{setID: "id", applied: applied, pruned: prunedAll, declared: []apply.ObjectRef{cm("a"), cm("b"), cm("c")},
				inventory: members("a", "b", "c")},
			wantReady: metav1.ConditionTrue, wantReason: applyv1alpha1.ReasonSucceeded, wantObserved: true, wantMembers: 3,
		},
		{
			name: "a successful apply that left objects carrying the set's label alone",
			o: outcome{setID: "id", applied: applied, pruned: prunedAll, declared: []apply.ObjectRef{cm("a"), cm("b"), cm("c")},
				inventory: members("a", "b", "c"), foreign: foreign},
			wantReady: metav1.ConditionTrue, wantReason: applyv1alpha1.ReasonSucceeded, wantObserved: true, wantMembers: 3, wantForeign: 1,
		},
		{
			name: "an apply whose prune kept a member that is not the set's to delete",
			o: outcome{setID: "id", applied: applied, pruned: pruned, declared: []apply.ObjectRef{cm("a"), cm("b"), cm("c")},
				inventory: members("a", "b", "c", "e")},
			wantReady: metav1.ConditionFalse, wantReason: applyv1alpha1.ReasonPruneSkipped, wantStalled: true, wantObserved: true, wantMembers: 4,
		},
		{
			name:      "a preview whose prune would keep a member",
			o:         outcome{setID: "id", applied: applied, pruned: pruned, dryRun: true, declared: []apply.ObjectRef{cm("a")}},
			wantReady: metav1.ConditionTrue, wantReason: applyv1alpha1.ReasonPreviewed, wantObserved: true, wantPlanDryRun: true,
		},
		{
			name:      "a preview",
			o:         outcome{setID: "id", applied: applied, dryRun: true, declared: []apply.ObjectRef{cm("a")}},
			wantReady: metav1.ConditionTrue, wantReason: applyv1alpha1.ReasonPreviewed, wantObserved: true, wantPlanDryRun: true,
		},
		{
			name:      "an error a retry may fix",
			o:         outcome{setID: "id", err: errors.New("boom"), reason: applyv1alpha1.ReasonApplyFailed},
			wantReady: metav1.ConditionFalse, wantReason: applyv1alpha1.ReasonApplyFailed, wantReconcile: true,
		},
		{
			name:      "an error only a change can fix",
			o:         outcome{setID: "id", err: errors.New("bad input"), reason: applyv1alpha1.ReasonInvalidInput, terminal: true},
			wantReady: metav1.ConditionFalse, wantReason: applyv1alpha1.ReasonInvalidInput, wantStalled: true, wantObserved: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := &applyv1alpha1.ApplySetStatus{}
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "set"}}
			setStatus(status, 7, (&Reconciler{}).placeInventory(set, tt.o))
			ready := apimeta.FindStatusCondition(status.Conditions, applyv1alpha1.ConditionReady)
			if ready == nil || ready.Status != tt.wantReady || ready.Reason != tt.wantReason || ready.ObservedGeneration != 7 {
				t.Fatalf("Ready = %+v, want %s/%s at generation 7", ready, tt.wantReady, tt.wantReason)
			}
			if got := apimeta.IsStatusConditionTrue(status.Conditions, applyv1alpha1.ConditionStalled); got != tt.wantStalled {
				t.Errorf("Stalled = %v, want %v", got, tt.wantStalled)
			}
			if got := apimeta.IsStatusConditionTrue(status.Conditions, applyv1alpha1.ConditionReconciling); got != tt.wantReconcile {
				t.Errorf("Reconciling = %v, want %v", got, tt.wantReconcile)
			}
			if got := status.ObservedGeneration == 7; got != tt.wantObserved {
				t.Errorf("observedGeneration = %d", status.ObservedGeneration)
			}
			if len(status.Members) != tt.wantMembers {
				t.Errorf("members = %v, want %d", status.Members, tt.wantMembers)
			}
			if got := foreignCount(status); got != tt.wantForeign {
				t.Errorf("foreignMembers = %+v, want %d", status.ForeignMembers, tt.wantForeign)
			}
			if tt.wantForeign > 0 && (status.ForeignMembers.Items[0].LabelledBy != "some-controller (Update)" ||
				!strings.Contains(ready.Message, "foreign objects carry its label")) {
				t.Errorf("foreignMembers = %+v, Ready = %q", status.ForeignMembers, ready.Message)
			}
			if status.ApplySetID != "id" {
				t.Errorf("applySetID = %q", status.ApplySetID)
			}
			if tt.o.err == nil {
				if status.Plan == nil || *status.Plan.DryRun != tt.wantPlanDryRun {
					t.Fatalf("plan = %+v", status.Plan)
				}
			}
		})
	}

	t.Run("the plan sorts changes by action", func(t *testing.T) {
		status := &applyv1alpha1.ApplySetStatus{}
		setStatus(status, 1, outcome{applied: applied, pruned: pruned, declared: []apply.ObjectRef{cm("a")}})
		p := status.Plan
		if len(p.Create) != 1 || len(p.Update) != 1 || p.Update[0].Fields[0] != ".data.k" ||
			len(p.Prune) != 1 || len(p.Skipped) != 1 || p.Skipped[0].Reason == "" {
			t.Errorf("plan = %+v", p)
		}
		want := applyv1alpha1.PlanCounts{Create: ptr.To[int32](1), Update: ptr.To[int32](1), Unchanged: ptr.To[int32](1),
			Prune: ptr.To[int32](1), Skipped: ptr.To[int32](1)}
		if diff := cmp.Diff(&want, p.Counts); diff != "" {
			t.Errorf("counts (-want +got):\n%s", diff)
		}
	})
}

// TestPlanFitsItsShare gives the plan more objects than its share of status
// can name: it counts them all and names the first that fit.
func TestPlanFitsItsShare(t *testing.T) {
	var o outcome
	const objects = 5000
	for i := range objects {
		ref := apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "ns", Name: fmt.Sprintf("%s-%d", strings.Repeat("n", 200), i)}
		o.applied.Changes = append(o.applied.Changes, apply.Change{Ref: ref, Action: apply.Created})
		o.applied.Changes = append(o.applied.Changes, apply.Change{Ref: ref, Action: apply.Unchanged})
	}
	p := plan(o)
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > setrun.MaxPlanBytes {
		t.Errorf("the plan takes %d bytes, more than its share of %d", len(data), setrun.MaxPlanBytes)
	}
	listed := len(p.Create)
	if listed == 0 || count(p.Counts.Create) != objects || count(p.Counts.Unchanged) != objects || count(p.Counts.Omitted) != objects-listed {
		t.Errorf("listed %d; counts %+v", listed, p.Counts)
	}
}

func TestSetStatusWhileWaiting(t *testing.T) {
	web := apply.ObjectRef{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: "ns", Name: "web"}
	waiting := &memberHealth{summary: health.Summary{Current: 1, InProgress: 1},
		unhealthy: []unhealthyMember{{ref: web, result: health.Result{Status: health.InProgress, Message: "Replicas: 0/2"}}}}
	start := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	status := &applyv1alpha1.ApplySetStatus{}
	reconcile := func(generation int64, now time.Time, h *memberHealth) *metav1.Condition {
		setStatus(status, generation, outcome{setID: "id", health: h, now: now, timeout: time.Minute})
		return apimeta.FindStatusCondition(status.Conditions, applyv1alpha1.ConditionReady)
	}

	ready := reconcile(1, start, waiting)
	if ready.Reason != applyv1alpha1.ReasonProgressing || !apimeta.IsStatusConditionTrue(status.Conditions, applyv1alpha1.ConditionReconciling) {
		t.Fatalf("waiting: Ready = %+v", ready)
	}
	if status.Health == nil || status.Health.Summary != "1/2 ready" || !status.Health.WaitingSince.Time.Equal(start) {
		t.Fatalf("waiting: health = %+v", status.Health)
	}
	if ready := reconcile(1, start.Add(30*time.Second), waiting); ready.Reason != applyv1alpha1.ReasonProgressing ||
		!status.Health.WaitingSince.Time.Equal(start) {
		t.Fatalf("still waiting: Ready = %+v, waiting since %v, want %v", ready, status.Health.WaitingSince, start)
	}
	if ready := reconcile(1, start.Add(2*time.Minute), waiting); ready.Reason != applyv1alpha1.ReasonHealthCheckFailed ||
		!apimeta.IsStatusConditionTrue(status.Conditions, applyv1alpha1.ConditionStalled) {
		t.Fatalf("past the timeout: Ready = %+v", ready)
	}
	if ready := reconcile(2, start.Add(3*time.Minute), waiting); ready.Reason != applyv1alpha1.ReasonProgressing ||
		!status.Health.WaitingSince.Time.Equal(start.Add(3*time.Minute)) {
		t.Fatalf("a new generation waits anew: Ready = %+v, since %v", ready, status.Health.WaitingSince)
	}
	failed := &memberHealth{summary: health.Summary{Failed: 1},
		unhealthy: []unhealthyMember{{ref: web, result: health.Result{Status: health.Failed, Message: "crashed"}}}}
	if ready := reconcile(2, start.Add(3*time.Minute), failed); ready.Reason != applyv1alpha1.ReasonHealthCheckFailed ||
		!strings.Contains(ready.Message, "1 of 1 members failed") {
		t.Fatalf("a failed member: Ready = %+v", ready)
	}
	if ready := reconcile(2, start.Add(4*time.Minute), &memberHealth{summary: health.Summary{Current: 2}}); ready.Status != metav1.ConditionTrue ||
		status.Health.WaitingSince != nil || status.Health.Summary != "2/2 ready" {
		t.Fatalf("healthy: Ready = %+v, health %+v", ready, status.Health)
	}
}

func foreignCount(status *applyv1alpha1.ApplySetStatus) int32 {
	if status.ForeignMembers == nil {
		return 0
	}
	return status.ForeignMembers.Count
}

// A full reconcile that finds everything as the last apply of the
// generation left it keeps that apply's plan and message: a restarted
// operator verifying its sets writes none of them.
func TestSetStatusConfirmingLastApply(t *testing.T) {
	cm := func(name string) apply.ObjectRef {
		return apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "ns", Name: name}
	}
	declared := []apply.ObjectRef{cm("a"), cm("b")}
	changes := func(actions ...apply.Action) apply.ChangeSet {
		var cs apply.ChangeSet
		for i, a := range actions {
			cs.Changes = append(cs.Changes, apply.Change{Ref: declared[i], Action: a})
		}
		return cs
	}
	applied := func(dryRun bool) *applyv1alpha1.ApplySetStatus {
		status := &applyv1alpha1.ApplySetStatus{}
		setStatus(status, 1, outcome{setID: "id", applied: changes(apply.Created, apply.Created), declared: declared, dryRun: dryRun})
		return status
	}
	for _, tc := range []struct {
		name       string
		status     *applyv1alpha1.ApplySetStatus
		generation int64
		o          outcome
		kept       bool
	}{
		{name: "all unchanged at the generation applied", status: applied(false), generation: 1,
			o: outcome{applied: changes(apply.Unchanged, apply.Unchanged)}, kept: true},
		{name: "one configured again", status: applied(false), generation: 1,
			o: outcome{applied: changes(apply.Unchanged, apply.Configured)}},
		{name: "a prune", status: applied(false), generation: 1,
			o: outcome{applied: changes(apply.Unchanged), pruned: apply.ChangeSet{Changes: []apply.Change{{Ref: cm("b"), Action: apply.Pruned}}}}},
		{name: "a new generation", status: applied(false), generation: 2,
			o: outcome{applied: changes(apply.Unchanged, apply.Unchanged)}},
		{name: "after a dry run", status: applied(true), generation: 1,
			o: outcome{applied: changes(apply.Unchanged, apply.Unchanged)}},
		{name: "drift reported", status: applied(false), generation: 1,
			o: outcome{applied: apply.ChangeSet{Changes: changes(apply.Unchanged, apply.Unchanged).Changes, Drift: []apply.Conflict{{Ref: cm("a")}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.status.DeepCopy()
			tc.o.setID, tc.o.declared = "id", declared
			setStatus(tc.status, tc.generation, tc.o)
			kept := equality.Semantic.DeepEqual(before.Plan, tc.status.Plan) &&
				readyOf(before).Message == readyOf(tc.status).Message
			if kept != tc.kept {
				t.Errorf("plan and message kept = %t, want %t: plan %+v, Ready %q", kept, tc.kept, tc.status.Plan, readyOf(tc.status).Message)
			}
			if tc.kept && !equality.Semantic.DeepEqual(before, tc.status) {
				t.Errorf("status changed: %+v, was %+v", tc.status, before)
			}
		})
	}
}

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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// reportOf is a status of a reconcile of generation, with Ready's reason,
// the approvals spent, and one member.
func reportOf(generation int64, reason string, spent int64, member string) *applyv1alpha1.ApplySetStatus {
	s := &applyv1alpha1.ApplySetStatus{ObservedGeneration: generation,
		Conditions:  []metav1.Condition{{Type: applyv1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: reason, ObservedGeneration: generation}},
		Members:     []applyv1alpha1.Member{{ObjectReference: applyv1alpha1.ObjectReference{Kind: "ConfigMap", Name: member}, UID: member}},
		MemberCount: ptr.To(int32(1)), GroupKinds: []string{"ConfigMap"}}
	if spent > 0 {
		s.Approval = &applyv1alpha1.ApprovalStatus{Sequence: ptr.To(spent)}
	}
	return s
}

func TestRebaseReport(t *testing.T) {
	tests := []struct {
		name           string
		stored, report *applyv1alpha1.ApplySetStatus
		generation     int64
		wantReason     string
		wantSpent      int64
	}{
		{name: "stored is of the same generation: the run's report",
			stored: reportOf(2, "Stored", 0, "s"), report: reportOf(2, "Run", 0, "r"), generation: 2, wantReason: "Run"},
		{name: "stored is older: the run's report",
			stored: reportOf(1, "Stored", 0, "s"), report: reportOf(2, "Run", 0, "r"), generation: 2, wantReason: "Run"},
		{name: "a run of a newer generation reported since: its report stays",
			stored: reportOf(3, "Stored", 0, "s"), report: reportOf(2, "Run", 0, "r"), generation: 2, wantReason: "Stored"},
		{name: "an approval spent since is never uncounted",
			stored: reportOf(2, "Stored", 4, "s"), report: reportOf(2, "Run", 3, "r"), generation: 2, wantReason: "Run", wantSpent: 4},
		{name: "the run's approval spent counts",
			stored: reportOf(2, "Stored", 3, "s"), report: reportOf(2, "Run", 4, "r"), generation: 2, wantReason: "Run", wantSpent: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			storedCopy, reportCopy := tt.stored.DeepCopy(), tt.report.DeepCopy()
			got := rebaseReport(tt.stored, tt.report, tt.generation)
			if r := readyOf(got); r == nil || r.Reason != tt.wantReason {
				t.Errorf("Ready = %+v, want reason %s", r, tt.wantReason)
			}
			if s := approvalSequence(got); s != tt.wantSpent {
				t.Errorf("approvals spent = %d, want %d", s, tt.wantSpent)
			}
			if len(got.Members) != 1 || got.Members[0].Name != "s" {
				t.Errorf("members = %v, want the stored record, for the caller to carry the run's changes onto", got.Members)
			}
			if readyOf(tt.stored).Reason != readyOf(storedCopy).Reason || tt.report.Members[0] != reportCopy.Members[0] {
				t.Error("rebaseReport changed its inputs")
			}
		})
	}
}

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
	"fmt"
	"strings"
	"testing"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

func TestDriftInStatus(t *testing.T) {
	deploy := func(name string) apply.ObjectRef {
		return apply.ObjectRef{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: "ns", Name: name}
	}
	scaled := func(name string) apply.Conflict {
		return apply.Conflict{Ref: deploy(name), Manager: "kubectl-scale", Fields: []string{".spec.replicas"}}
	}
	unchanged := func(names ...string) []apply.Change {
		var out []apply.Change
		for _, n := range names {
			out = append(out, apply.Change{Ref: deploy(n), Action: apply.Unchanged})
		}
		return out
	}
	tests := []struct {
		name        string
		applied     apply.ChangeSet
		wantActions []applyv1alpha1.DriftAction
		wantReason  string
	}{{
		name:       "no drift",
		applied:    apply.ChangeSet{Changes: unchanged("a")},
		wantReason: applyv1alpha1.ReasonSucceeded,
	}, {
		name:        "drift put back: Ready as ever",
		applied:     apply.ChangeSet{Changes: unchanged("a"), Drift: []apply.Conflict{scaled("a")}},
		wantActions: []applyv1alpha1.DriftAction{applyv1alpha1.DriftCorrected},
		wantReason:  applyv1alpha1.ReasonSucceeded,
	}, {
		name:        "drift left in place: Ready, and Drifted says so",
		applied:     apply.ChangeSet{Changes: unchanged("a"), DriftLeft: []apply.Conflict{scaled("a")}},
		wantActions: []applyv1alpha1.DriftAction{applyv1alpha1.DriftReported},
		wantReason:  applyv1alpha1.ReasonDrifted,
	}, {
		name: "a changed declaration put its drift back, another member's was left",
		applied: apply.ChangeSet{Changes: unchanged("a", "b"), Drift: []apply.Conflict{scaled("a")},
			DriftLeft: []apply.Conflict{scaled("b")}},
		wantActions: []applyv1alpha1.DriftAction{applyv1alpha1.DriftCorrected, applyv1alpha1.DriftReported},
		wantReason:  applyv1alpha1.ReasonDrifted,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := &applyv1alpha1.ApplySetStatus{}
			setStatus(status, 1, outcome{setID: "id", applied: tt.applied})
			var actions []applyv1alpha1.DriftAction
			for _, d := range status.Drift {
				actions = append(actions, d.Action)
			}
			if fmt.Sprint(actions) != fmt.Sprint(tt.wantActions) {
				t.Errorf("drift = %+v, want actions %v", status.Drift, tt.wantActions)
			}
			ready := apimeta.FindStatusCondition(status.Conditions, applyv1alpha1.ConditionReady)
			if ready == nil || ready.Status != "True" || ready.Reason != tt.wantReason {
				t.Fatalf("Ready = %+v, want True/%s", ready, tt.wantReason)
			}
			if says := strings.Contains(ready.Message, "spec.driftPolicy Report"); says != (tt.wantReason == applyv1alpha1.ReasonDrifted) {
				t.Errorf("Ready message %q", ready.Message)
			}
		})
	}
}

// TestDriftFitsItsShare: corrected and reported drift share one bound.
func TestDriftFitsItsShare(t *testing.T) {
	var cs apply.ChangeSet
	for i := range 2000 {
		ref := apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "ns", Name: fmt.Sprintf("%s-%d", strings.Repeat("n", 60), i)}
		c := apply.Conflict{Ref: ref, Manager: "kubectl-edit", Fields: []string{".data.k"}}
		cs.Drift, cs.DriftLeft = append(cs.Drift, c), append(cs.DriftLeft, c)
	}
	drift := driftStatus(cs)
	size := 0
	for _, d := range drift {
		size += updateSize(applyv1alpha1.ObjectUpdate{ObjectReference: d.ObjectReference, Fields: d.Fields}) + len(d.Manager)
	}
	if len(drift) == 0 || size > maxListBytes {
		t.Errorf("%d entries of %d bytes, more than %d", len(drift), size, maxListBytes)
	}
}

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
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

func entry(digest, status string, at time.Time) applyv1alpha1.HistoryEntry {
	return applyv1alpha1.HistoryEntry{Digest: digest, LastReconciledStatus: status, TotalReconciliations: 1,
		FirstReconciled: &metav1.Time{Time: at}, LastReconciled: &metav1.Time{Time: at}, LastReconciledDuration: &metav1.Duration{}}
}

func TestPushHistory(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC)
	d1, d2 := "sha256:"+fmt.Sprintf("%064d", 1), "sha256:"+fmt.Sprintf("%064d", 2)
	var h []applyv1alpha1.HistoryEntry
	h = pushHistory(h, entry(d1, "Succeeded", t0))
	h = pushHistory(h, entry(d1, "Succeeded", t0.Add(time.Hour)))
	if len(h) != 1 || h[0].TotalReconciliations != 2 || !h[0].FirstReconciled.Time.Equal(t0) || !h[0].LastReconciled.Time.Equal(t0.Add(time.Hour)) {
		t.Fatalf("the same declaration and result twice: %+v; want one entry counting two runs, first at %s", h, t0)
	}
	h = pushHistory(h, entry(d2, "ApplyFailed", t0.Add(2*time.Hour)))
	h = pushHistory(h, entry("", "Succeeded", t0.Add(3*time.Hour))) // a health check again: what the top entry declared
	if len(h) != 3 || h[0].Digest != d2 || h[0].LastReconciledStatus != "Succeeded" || h[2].Digest != d1 {
		t.Fatalf("history %+v; want the newest first, a check again naming the top entry's declaration", h)
	}
	approved := entry(d1, "Succeeded", t0.Add(4*time.Hour))
	approved.ApprovedBy = "alice"
	h = pushHistory(h, approved)
	h = pushHistory(h, entry(d1, "Succeeded", t0.Add(5*time.Hour)))
	if len(h) != 4 || h[0].ApprovedBy != "alice" || h[0].TotalReconciliations != 2 || h[1].ApprovedBy != "" {
		t.Fatalf("history %+v; want the approved entry to keep its approver through a run that spent no approval", h)
	}
}

// However many runs there are, the history keeps its bound, in entries and bytes.
func TestPushHistoryIsBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC)
	var h []applyv1alpha1.HistoryEntry
	for i := range 1000 {
		e := entry("sha256:"+fmt.Sprintf("%064d", i), "Succeeded", t0.Add(time.Duration(i)*time.Minute))
		e.Plan, e.ObservedGeneration = e.Digest, int64(i+1)
		h = pushHistory(h, e)
	}
	if len(h) != applyv1alpha1.MaxHistory || h[0].ObservedGeneration != 1000 {
		t.Fatalf("%d entries, the newest of generation %d; want %d, the newest first", len(h), h[0].ObservedGeneration, applyv1alpha1.MaxHistory)
	}
	raw, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 8<<10 {
		t.Errorf("history of %d bytes; want at most 8 KiB", len(raw))
	}
}

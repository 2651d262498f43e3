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
	"context"
	"fmt"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// operatorStatus is the status of one of the operator's sets, as the
// operator last wrote it; nil for other tools' sets, and one the user may
// not read.
func operatorStatus(ctx context.Context, c *cli.Clients, ref membership.ParentRef) *applyv1alpha1.ApplySetStatus {
	if !cli.IsOperatorSet(ref) {
		return nil
	}
	cl, err := c.Client()
	if err != nil {
		return nil
	}
	set, err := cli.OperatorSetOf(ctx, cl, ref)
	if err != nil {
		return nil
	}
	return set.GetSetStatus()
}

// describeWindow is the Window line of view: held or open, by which
// window, and until when.
func describeWindow(w *applyv1alpha1.WindowStatus) string {
	if w == nil {
		return ""
	}
	state := "open"
	if ptr.Deref(w.Held, false) {
		state = "held"
	}
	if w.Window != "" {
		state += " by the " + w.Window
	}
	switch {
	case w.NextChange != "" && ptr.Deref(w.Held, false):
		state += "; next opening " + w.NextChange
	case w.NextChange != "":
		state += "; held from " + w.NextChange
	}
	return state
}

// printHistory is the History table of view: one row an entry, newest first.
func printHistory(w io.Writer, history []applyv1alpha1.HistoryEntry) error {
	if len(history) == 0 {
		return nil
	}
	t := &metav1.Table{ColumnDefinitions: cli.Columns(0, "Last run", "Runs", "Generation", "Result", "Applied", "Pruned", "Failed", "Took")}
	for _, e := range history {
		c := ptr.Deref(e.Counts, applyv1alpha1.HistoryCounts{})
		last, took := "", ""
		if e.LastReconciled != nil {
			last = e.LastReconciled.UTC().Format(time.RFC3339)
		}
		if e.LastReconciledDuration != nil {
			took = e.LastReconciledDuration.Duration.String()
		}
		t.Rows = append(t.Rows, metav1.TableRow{Cells: []any{last, e.TotalReconciliations, e.ObservedGeneration, e.LastReconciledStatus,
			ptr.Deref(c.Applied, 0), ptr.Deref(c.Pruned, 0), ptr.Deref(c.Failed, 0), took}})
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "History:")
	return cli.PrintTable(w, t, false, false)
}

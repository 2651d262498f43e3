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
	"strings"
	"testing"
	"time"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/timebudget"
)

func TestWithinTime(t *testing.T) {
	blocked := func(ctx context.Context) outcome {
		<-ctx.Done()
		return failure(outcome{}, applyv1alpha1.ReasonApplyFailed, false, ctx.Err())
	}
	quick := func(context.Context) outcome { return outcome{} }
	// A wait that is not the set's doing, such as for a build slot, longer
	// than the whole budget.
	waiting := func(ctx context.Context) outcome {
		resume := timebudget.Pause(ctx)
		time.Sleep(100 * time.Millisecond)
		resume()
		return outcome{}
	}
	stopped, stop := context.WithCancel(context.Background())
	stop()
	tests := []struct {
		name       string
		ctx        context.Context
		reconcile  func(context.Context) outcome
		wantReason string
	}{
		{name: "within the budget", ctx: context.Background(), reconcile: quick},
		{name: "past the budget", ctx: context.Background(), reconcile: blocked, wantReason: applyv1alpha1.ReasonBudgetExceeded},
		{name: "a paused wait past the budget", ctx: context.Background(), reconcile: waiting},
		{name: "the operator stopping", ctx: stopped, reconcile: blocked, wantReason: applyv1alpha1.ReasonApplyFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := withinTime(tt.ctx, 20*time.Millisecond, tt.reconcile)
			if o.reason != tt.wantReason {
				t.Fatalf("reason %q, want %q (error %v)", o.reason, tt.wantReason, o.err)
			}
			if tt.wantReason == applyv1alpha1.ReasonBudgetExceeded && (!o.terminal ||
				!strings.Contains(o.err.Error(), "took longer than the 20ms one reconcile of a set may hold a worker") ||
				!errors.Is(o.err, context.Canceled)) { // what the reconcile saw
				t.Fatalf("outcome %+v", o)
			}
		})
	}
}

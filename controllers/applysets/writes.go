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
	"fmt"
	"time"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
)

// setWrites are what a run of a set writes to the set itself: the
// reconciler's writes of its parent contract and of approvals spent.
type setWrites struct {
	r   *Reconciler
	set applyv1alpha1.Set
}

var _ setrun.Writes = (*setWrites)(nil)

// Hints applies the set's ID, tooling, hints and finalizer (writeParent).
func (w *setWrites) Hints(ctx context.Context, hints declared.Hints) error {
	return w.r.writeParent(ctx, w.set, hints)
}

// SpendApproval records the approval a spends in the set's status before
// the writes it allows, on the set as it was read: the API server refuses
// it when the set changed since.
func (w *setWrites) SpendApproval(ctx context.Context, a *setrun.Approval) error {
	status := w.set.GetSetStatus()
	before := status.DeepCopy()
	setApproval(status, outcome{now: time.Now(), approval: &approvalOutcome{mode: a.Mode, digest: a.Digest, spent: true}})
	if err := w.r.writeStatusLocked(ctx, w.set, before); err != nil {
		*status = *before
		return fmt.Errorf("recording the approval of plan %s before applying it: %w", a.Digest, err)
	}
	return nil
}

// BeforeDelete stops deletes while the operator is uninstalled, or once
// another replica took the set over.
func (w *setWrites) BeforeDelete(ctx context.Context) error {
	return w.r.beforeDelete(w.set)(ctx)
}

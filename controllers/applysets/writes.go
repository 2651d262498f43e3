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

	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
)

// setWrites are what a run of a set writes to the set itself, through the
// set's one writer (record.go): its parent contract and approvals spent.
type setWrites struct {
	rec *record
}

var _ setrun.Writes = (*setWrites)(nil)

// Hints applies the set's ID, tooling, hints and finalizer.
func (w *setWrites) Hints(ctx context.Context, hints declared.Hints) error {
	return w.rec.writeHints(ctx, hints)
}

// Spend records the approval, or window override, s spends in the set's
// status before the writes it allows, on the set as stored: never twice,
// and never once the set's approval or override changed.
func (w *setWrites) Spend(ctx context.Context, s setrun.Spending) error {
	return w.rec.spend(ctx, s)
}

// BeforeDelete stops deletes while the operator is uninstalled, or once
// another replica took the set over.
func (w *setWrites) BeforeDelete(ctx context.Context) error {
	return w.rec.r.beforeDelete(w.rec.set)(ctx)
}

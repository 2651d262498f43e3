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

package apply

import (
	"context"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// unknownManager stands for the manager of drift whose fields an update
// removed: the API server records no owner of a field that is gone.
const unknownManager = "unknown"

// leavesDrift tells whether the apply leaves p's object as it is: under
// LeaveDrift, an object that exists and that this engine last applied with
// the very configuration it declares now (the digest says so) is not
// written, whatever others changed in it since.
func (e *Engine) leavesDrift(p objectPlan, opts ApplyOptions) bool {
	if !opts.LeaveDrift || p.existing == nil || p.done != nil {
		return false
	}
	digest := p.desired.GetAnnotations()[appliedConfigAnnotation]
	return digest != "" && p.existing.GetAnnotations()[appliedConfigAnnotation] == digest && appliedBy(p.existing, e.FieldManager)
}

// findDrift finds, without writing, what others changed in an object the
// apply leaves as it is, as Apply finds the drift it takes back: a
// server-side dry-run apply of the declaration, as the engine's identity
// and without force, conflicts over the fields other managers took, and
// names them. Without a conflict, what the dry run would change are fields
// an update removed. The change is Unchanged, since nothing is written; in a
// preview it carries the object as it is and as Correct would make it.
func (e *Engine) findDrift(ctx context.Context, p objectPlan, opts ApplyOptions) written {
	ref := p.Ref()
	dryRun := []client.ApplyOption{client.FieldOwner(e.FieldManager), client.DryRunAll}
	result := p.desired.DeepCopy()
	err := e.applyObject(ctx, result, dryRun...)
	w := written{left: conflictOf(ref, err)}
	if w.left != nil || onlyDigestConflicts(err) {
		// What Correct would make of it, for a preview to show.
		result = p.desired.DeepCopy()
		err = e.applyObject(ctx, result, append(slices.Clone(dryRun), client.ForceOwnership)...)
	}
	if err != nil {
		w.left, w.change, w.err = nil, changeOf(failed(ref, err)), err
		return w
	}
	if w.left == nil {
		if fields := changedFields(p.existing.Object, result.Object); len(fields) > 0 {
			w.left = &Conflict{Ref: ref, Manager: unknownManager, Fields: fields, managers: []string{unknownManager}}
		}
	}
	w.change = &Change{Ref: ref, Action: Unchanged}
	switch {
	case opts.DryRun:
		w.change.Live, w.change.Preview = p.existing, result
	default:
		w.change.Object = opts.kept(p.existing)
	}
	if w.left != nil {
		w.change.Reason = "drift left in place: " + w.left.Manager + " changed " + text.Summarize(w.left.Fields, messageFields)
	}
	return w
}

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
	"slices"

	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// entryOverhead is what JSON adds to an object reference: keys, quotes,
// commas.
const entryOverhead = 48

// plan is what the reconcile did, or would do: counted in full, listed
// within setrun.MaxPlanBytes, creates first and unchanged objects never.
func plan(o outcome) *applyv1alpha1.Plan {
	p := &applyv1alpha1.Plan{DryRun: ptr.To(o.dryRun)}
	l := planLists{left: setrun.MaxPlanBytes}
	l.applied(p, o.applied.Changes)
	switch {
	case o.approval != nil && (o.approval.awaiting || o.approval.spent):
		p.Digest = o.approval.digest
	case o.window != nil:
		p.Digest = o.window.digest
	}
	l.pruned(p, slices.Concat(o.pruned.Changes, held(o)))
	p.Counts = &applyv1alpha1.PlanCounts{Create: nonZero(l.n.create), Update: nonZero(l.n.update), Recreate: nonZero(l.n.recreate),
		Unchanged: nonZero(l.n.unchanged), Prune: nonZero(l.n.prune), Skipped: nonZero(l.n.skipped), Omitted: nonZero(l.n.omitted)}
	return p
}

// planLists fills a plan's lists within what is left of its share, and
// counts every change.
type planLists struct {
	left int
	n    struct{ create, update, recreate, unchanged, prune, skipped, omitted int32 }
}

// fits takes size out of what is left, or counts the change as omitted.
func (l *planLists) fits(size int) bool {
	if size > l.left {
		l.n.omitted++
		return false
	}
	l.left -= size
	return true
}

func (l *planLists) applied(p *applyv1alpha1.Plan, changes []apply.Change) {
	for _, c := range changes {
		switch c.Action {
		case apply.Created:
			l.n.create++
			if r := ref(c.Ref); l.fits(refSize(r)) {
				p.Create = append(p.Create, r)
			}
		case apply.Configured:
			l.n.update++
			if u := update(c); l.fits(updateSize(u)) {
				p.Update = append(p.Update, u)
			}
		case apply.Recreated:
			l.n.recreate++
			if u := update(c); l.fits(updateSize(u)) {
				p.Recreate = append(p.Recreate, u)
			}
		case apply.Unchanged:
			l.n.unchanged++
		}
	}
}

func (l *planLists) pruned(p *applyv1alpha1.Plan, changes []apply.Change) {
	for _, c := range changes {
		switch c.Action {
		case apply.Pruned:
			l.n.prune++
			if r := ref(c.Ref); l.fits(refSize(r)) {
				p.Prune = append(p.Prune, r)
			}
		case apply.Skipped, apply.Failed:
			l.n.skipped++
			if s := (applyv1alpha1.SkippedPrune{ObjectReference: ref(c.Ref), Reason: c.Reason}); l.fits(refSize(s.ObjectReference) + len(s.Reason)) {
				p.Skipped = append(p.Skipped, s)
			}
		}
	}
}

func update(c apply.Change) applyv1alpha1.ObjectUpdate {
	return applyv1alpha1.ObjectUpdate{ObjectReference: ref(c.Ref), Fields: boundedFields(c.Fields)}
}

func refSize(r applyv1alpha1.ObjectReference) int {
	return entryOverhead + len(r.Group) + len(r.Kind) + len(r.Namespace) + len(r.Name)
}

func updateSize(u applyv1alpha1.ObjectUpdate) int {
	n := refSize(u.ObjectReference)
	for _, f := range u.Fields {
		n += len(f) + 3
	}
	return n
}

// nonZero leaves a zero count out of status.
func nonZero(n int32) *int32 {
	if n == 0 {
		return nil
	}
	return ptr.To(n)
}

// count reads a count of status.
func count(n *int32) int { return int(ptr.Deref(n, 0)) }

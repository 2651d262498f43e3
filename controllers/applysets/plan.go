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
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// maxPlanBytes is status.plan's share of status: its counts cover every
// object, its lists name the first that fit, so that however many objects
// a set declares, its status can be written.
const maxPlanBytes = 128 << 10

// entryOverhead is what JSON adds to an object reference: keys, quotes,
// commas.
const entryOverhead = 48

// plan is what the reconcile did, or would do: counted in full, listed
// within maxPlanBytes, creates first and unchanged objects never.
func plan(o outcome) *applyv1alpha1.Plan {
	p := &applyv1alpha1.Plan{DryRun: ptr.To(o.dryRun)}
	var n struct{ create, update, recreate, unchanged, prune, skipped, omitted int32 }
	left := maxPlanBytes
	fits := func(size int) bool {
		if size > left {
			n.omitted++
			return false
		}
		left -= size
		return true
	}
	for _, c := range o.applied.Changes {
		switch c.Action {
		case apply.Created:
			n.create++
			if r := ref(c.Ref); fits(refSize(r)) {
				p.Create = append(p.Create, r)
			}
		case apply.Configured:
			n.update++
			if u := update(c); fits(updateSize(u)) {
				p.Update = append(p.Update, u)
			}
		case apply.Recreated:
			n.recreate++
			if u := update(c); fits(updateSize(u)) {
				p.Recreate = append(p.Recreate, u)
			}
		case apply.Unchanged:
			n.unchanged++
		}
	}
	if o.approval != nil && (o.approval.awaiting || o.approval.spent) {
		p.Digest = o.approval.digest
	}
	for _, c := range slices.Concat(o.pruned.Changes, held(o)) {
		switch c.Action {
		case apply.Pruned:
			n.prune++
			if r := ref(c.Ref); fits(refSize(r)) {
				p.Prune = append(p.Prune, r)
			}
		case apply.Skipped, apply.Failed:
			n.skipped++
			if s := (applyv1alpha1.SkippedPrune{ObjectReference: ref(c.Ref), Reason: c.Reason}); fits(refSize(s.ObjectReference) + len(s.Reason)) {
				p.Skipped = append(p.Skipped, s)
			}
		}
	}
	p.Counts = &applyv1alpha1.PlanCounts{Create: nonZero(n.create), Update: nonZero(n.update), Recreate: nonZero(n.recreate),
		Unchanged: nonZero(n.unchanged), Prune: nonZero(n.prune), Skipped: nonZero(n.skipped), Omitted: nonZero(n.omitted)}
	return p
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

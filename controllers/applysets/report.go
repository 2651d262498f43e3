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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// reported is what a set said before this reconcile, so that only what
// changed becomes an Event.
type reported struct {
	ready    *metav1.Condition
	warnings []string
	foreign  *applyv1alpha1.ForeignMembers
}

func reportedOf(set applyv1alpha1.Set) reported {
	status := set.GetSetStatus()
	return reported{ready: readyOf(status).DeepCopy(), warnings: slices.Clone(status.Warnings),
		foreign: status.ForeignMembers.DeepCopy()}
}

// report tells one outcome everywhere it is told, together: the set's
// status, the Events of what changed since before, and the metrics.
func (r *Reconciler) report(set applyv1alpha1.Set, before reported, o outcome) {
	setStatus(set.GetSetStatus(), set.GetGeneration(), o)
	r.recordOutcome(set, before.ready, o)
	r.recordWarnings(set, before.warnings)
	r.recordForeign(set, before.foreign, o)
	recordMetrics(r.groupKind.Kind, set, o)
}

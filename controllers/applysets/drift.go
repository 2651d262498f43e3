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
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/metrics"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// ReasonDriftReported is the reason of the Event, once per change of the
// drift a set leaves in place (spec.driftPolicy Report): what others
// changed, and who.
const ReasonDriftReported = "DriftReported"

// driftStatus is status.drift: the drift the apply put back, then the drift
// it left in place, for the first objects that fit in maxListBytes.
func driftStatus(cs apply.ChangeSet) []applyv1alpha1.Drift {
	corrected, left := conflictsWithin(cs.Drift, maxListBytes)
	reported, _ := conflictsWithin(cs.DriftLeft, left)
	out := make([]applyv1alpha1.Drift, 0, len(corrected)+len(reported))
	for _, c := range corrected {
		out = append(out, applyv1alpha1.Drift{Conflict: c, Action: applyv1alpha1.DriftCorrected})
	}
	for _, c := range reported {
		out = append(out, applyv1alpha1.Drift{Conflict: c, Action: applyv1alpha1.DriftReported})
	}
	return out
}

// reportedDrift is the drift of status that the set left in place.
func reportedDrift(drift []applyv1alpha1.Drift) []applyv1alpha1.Drift {
	return slices.DeleteFunc(slices.Clone(drift), func(d applyv1alpha1.Drift) bool { return d.Action != applyv1alpha1.DriftReported })
}

// driftMessage says, for the Ready condition, that the set is applied but
// leaves drift in place; "" when it leaves none.
func driftMessage(status *applyv1alpha1.ApplySetStatus) string {
	left := reportedDrift(status.Drift)
	if len(left) == 0 {
		return ""
	}
	return fmt.Sprintf("; left in place what others changed in %d objects (spec.driftPolicy Report): status.drift names them", len(left))
}

// recordDrift tells, once per change, the drift the set leaves in place:
// a set that reports drift at each interval would otherwise repeat it.
func (r *Reconciler) recordDrift(ctx context.Context, set applyv1alpha1.Set, before []applyv1alpha1.Drift) {
	now := reportedDrift(set.GetSetStatus().Drift)
	if len(now) == 0 || slices.EqualFunc(reportedDrift(before), now, sameDrift) {
		return
	}
	items := make([]string, 0, len(now))
	for _, d := range now {
		items = append(items, fmt.Sprintf("%s/%s %s/%s: %s changed %s", d.Group, d.Kind, d.Namespace, d.Name,
			d.Manager, text.Summarize(d.Fields, maxEventFields)))
	}
	r.event(ctx, set, "Warning", ReasonDriftReported, "Apply", "%s", text.Truncate(
		"Left in place (spec.driftPolicy Report): "+text.Summarize(items, 5)+
			"; change the set to declare these values, set driftPolicy Correct to put them back, or list them in spec.ignoreFields",
		maxEventMessage))
}

func sameDrift(a, b applyv1alpha1.Drift) bool {
	return a.ObjectReference == b.ObjectReference && a.Manager == b.Manager && slices.Equal(a.Fields, b.Fields)
}

// The labels that name a set in a figure, besides setKindLabel.
const (
	setNamespaceLabel = "namespace"
	setNameLabel      = "name"
)

var driftedObjects = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "applyset_operator_drifted_objects",
	Help: "Members whose drift a set left in place at its last apply (spec.driftPolicy Report), by set.",
}, []string{setKindLabel, setNamespaceLabel, setNameLabel})

func init() {
	metrics.MustRegister(driftedObjects)
}

// recordDriftMetric sets the figure of a set whose apply ran.
func recordDriftMetric(kind string, set applyv1alpha1.Set, o outcome) {
	if o.recheck || o.applied.Changes == nil {
		return
	}
	driftedObjects.WithLabelValues(kind, set.GetNamespace(), set.GetName()).Set(float64(len(o.applied.DriftLeft)))
}

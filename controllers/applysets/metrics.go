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
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/metrics"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// setKindLabel names the kind of set (ApplySet, ClusterApplySet) a figure is about.
const setKindLabel = "set_kind"

var (
	objectsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "applyset_operator_objects_total",
		Help: "Objects handled by set reconciles, by kind of set, action (Created, Configured, Unchanged, Pruned, Skipped, Failed) and whether it was a dry run.",
	}, []string{setKindLabel, "action", "dry_run"})
	conflictsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "applyset_operator_conflicts_total",
		Help: "Applies stopped by fields another field manager owns.",
	}, []string{setKindLabel})
	foreignObjects = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "applyset_operator_foreign_objects",
		Help: "Objects that carry a set's part-of label although the set did not apply them, by set; the set leaves them alone.",
	}, []string{setKindLabel, "namespace", "name"})
	approvalAwaitingSince = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "applyset_operator_approval_awaiting_since_seconds",
		Help: "When the plan of a set began to wait for approval, in Unix seconds, by set; absent when nothing waits.",
	}, []string{setKindLabel, "namespace", "name"})
	approvalWaitSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "applyset_operator_approval_wait_seconds",
		Help:    "How long approved plans waited for their approval.",
		Buckets: prometheus.ExponentialBuckets(1, 4, 10),
	}, []string{setKindLabel})
	setReconcileDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "applyset_operator_set_reconcile_duration_seconds",
		Help:    "Time to reconcile one ApplySet or ClusterApplySet.",
		Buckets: prometheus.ExponentialBuckets(0.005, 3, 10),
	}, []string{setKindLabel})
)

func init() {
	metrics.MustRegister(objectsTotal, conflictsTotal, foreignObjects, approvalAwaitingSince, approvalWaitSeconds, setReconcileDuration)
}

func recordMetrics(kind string, set applyv1alpha1.Set, o outcome) {
	if o.foreign != nil {
		foreignObjects.WithLabelValues(kind, set.GetNamespace(), set.GetName()).Set(float64(len(o.foreign)))
	}
	dryRun := "false"
	if o.dryRun {
		dryRun = "true"
	}
	for _, cs := range []apply.ChangeSet{o.applied, o.pruned} {
		for _, c := range cs.Changes {
			objectsTotal.WithLabelValues(kind, string(c.Action), dryRun).Inc()
		}
	}
	if n := len(o.applied.Conflicts); n > 0 {
		conflictsTotal.WithLabelValues(kind).Add(float64(n))
	}
	recordApprovalMetrics(kind, set, o)
}

func recordApprovalMetrics(kind string, set applyv1alpha1.Set, o outcome) {
	a, status := o.approval, set.GetSetStatus().Approval
	if a != nil && a.spent && a.waitingSince != nil {
		approvalWaitSeconds.WithLabelValues(kind).Observe(o.now.Sub(a.waitingSince.Time).Seconds())
	}
	if status == nil || status.AwaitingSince == nil {
		approvalAwaitingSince.DeleteLabelValues(kind, set.GetNamespace(), set.GetName())
		return
	}
	approvalAwaitingSince.WithLabelValues(kind, set.GetNamespace(), set.GetName()).Set(float64(status.AwaitingSince.Unix()))
}

// forgetMetrics drops the figures of a set that is gone.
func forgetMetrics(kind string, set applyv1alpha1.Set) {
	forgetMetricsOf(kind, client.ObjectKeyFromObject(set))
}

// forgetMetricsOf drops the figures of the set named by key.
func forgetMetricsOf(kind string, key client.ObjectKey) {
	foreignObjects.DeleteLabelValues(kind, key.Namespace, key.Name)
	approvalAwaitingSince.DeleteLabelValues(kind, key.Namespace, key.Name)
}

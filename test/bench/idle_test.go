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

package bench

import (
	"testing"
	"time"

	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// waitIdle waits until the operators of this process have nothing left to
// do: no reconcile running, and none finished, over a second. An operator
// that starts reconciles every set it finds, those of earlier runs of the
// process too; a run that counted that resync as its own would charge each
// of its sets with the earlier sets' reads.
func waitIdle(b *testing.B) {
	b.Helper()
	const quiet = time.Second
	deadline := time.Now().Add(10 * time.Minute)
	last, since := -1.0, time.Now()
	for time.Now().Before(deadline) {
		active, reconciles := reconcileActivity(b)
		if active > 0 || reconciles != last {
			last, since = reconciles, time.Now()
		} else if time.Since(since) >= quiet {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatal("the operator was still reconciling after 10 minutes")
}

// reconcileActivity sums, over every controller of the process, the
// reconciles running and the reconciles finished.
func reconcileActivity(b *testing.B) (active, finished float64) {
	b.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			switch f.GetName() {
			case "controller_runtime_active_workers":
				active += m.GetGauge().GetValue()
			case "controller_runtime_reconcile_total":
				finished += m.GetCounter().GetValue()
			}
		}
	}
	return active, finished
}

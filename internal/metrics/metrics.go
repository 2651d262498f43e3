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

// Package metrics registers the operator's own Prometheus metrics with
// controller-runtime's registry, which the manager serves, and remembers
// them: a Prometheus registry cannot list what it holds, and the metrics
// reference (docs/reference/metrics.md) is generated from what the manager
// registers.
package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	mu         sync.Mutex
	registered []prometheus.Collector
)

// MustRegister registers collectors with controller-runtime's registry, and
// panics as prometheus.Registerer.MustRegister does.
func MustRegister(collectors ...prometheus.Collector) {
	crmetrics.Registry.MustRegister(collectors...)
	mu.Lock()
	defer mu.Unlock()
	registered = append(registered, collectors...)
}

// Registered returns the collectors MustRegister registered, in order.
func Registered() []prometheus.Collector {
	mu.Lock()
	defer mu.Unlock()
	return append([]prometheus.Collector(nil), registered...)
}

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
	"cmp"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/applyset-operator/applyset-operator/internal/buildgate"
	"github.com/applyset-operator/applyset-operator/internal/kbuild"
	"github.com/applyset-operator/applyset-operator/internal/metrics"
)

// builds counts the reads of oci and flux artifacts, by whether a set
// reading the same files had built them already.
var builds = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "applyset_operator_builds_total",
	Help: "Reads of the directory of an oci or flux source's artifact (a kustomize build or its manifest files), by cached: " +
		"\"true\" when a set reading the same files had built them (--build-cache-size).",
}, []string{"cached"})

func init() {
	metrics.MustRegister(builds)
}

func observeBuild(cached bool) { builds.WithLabelValues(strconv.FormatBool(cached)).Inc() }

func newBuildGate(mgr ctrl.Manager, opts Options) *buildgate.Gate {
	slots := opts.MaxBuilds
	if slots <= 0 {
		slots = buildgate.DefaultSlots(kbuild.Footprint(cmp.Or(opts.BuildMemory, kbuild.DefaultMaxMemory)))
	}
	mgr.GetLogger().WithName("applysets").Info("Running kustomize builds of oci and flux sources a few at a time", "maxBuilds", slots)
	return buildgate.New(slots, buildgate.DefaultMaxWait)
}

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

// Command manager runs the applyset-operator controllers and webhooks.
package main

import (
	"flag"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/depwatch"
)

// bindBoundFlags binds the flags that bound what one set, or one tenant,
// may cost the operator.
func (o *options) bindBoundFlags(fs *flag.FlagSet) {
	o.maxSetInputSize = *resource.NewQuantity(declared.DefaultLimits.Bytes, resource.BinarySI)
	sizeFlag(fs, &o.maxSetInputSize, "max-set-input-size", "The most YAML one set's sources may hold, decompressed, and a "+
		"kustomize build of theirs may produce, a bound on the operator's memory that also stops gzip bombs (default 16Mi).")
	// No client-side limit by default, as controller-runtime has it: API
	// Priority and Fairness shares the API server fairly, and a limit of 50
	// per second would stretch the first apply of a thousand objects over 20
	// seconds. An admin who wants one sets it.
	fs.Float64Var(&o.kubeAPIQPS, "kube-api-qps", -1,
		"Requests per second each of the operator's clients may make on average (its own, and one per ServiceAccount a set acts as); "+
			"negative leaves the rate to the API server's Priority and Fairness.")
	fs.IntVar(&o.kubeAPIBurst, "kube-api-burst", 100,
		"Requests each of the operator's clients may make at once above --kube-api-qps, when that is positive.")
	fs.IntVar(&o.maxSetObjects, "max-set-objects", declared.DefaultLimits.Objects,
		"The most objects one set may declare, a bound on the operator's memory and on the time one set holds a worker.")
	fs.DurationVar(&o.maxReconcileTime, "max-reconcile-time", 0,
		"The most time one reconcile of a set may hold a worker, a wait for a build slot (--max-builds) not counted; a set past it "+
			"stalls with BudgetExceeded and is tried again at its interval. "+
			"0 (the default) allows 2m, or 7ms for each object --max-set-objects allows, whichever is longer: 12m at 100,000.")
	fs.DurationVar(&o.minInterval, "min-interval", applysets.DefaultMinInterval,
		"The shortest interval a set is applied again at: a set whose spec.interval is shorter runs at this one.")
	fs.IntVar(&o.depWatches, "max-dependency-watches", depwatch.DefaultLimits.Total,
		"How many of the objects sets depend on (spec.dependsOn with apiVersion) are watched at once, one watch an object, made as "+
			"the set's identity once it has read the object; a set that waits for an object beyond this looks again by itself, with backoff.")
	fs.IntVar(&o.depWatchesPerNS, "max-dependency-watches-per-namespace", depwatch.DefaultLimits.PerNamespace,
		"How many of the objects they depend on the sets of one namespace may have watched at once (a set at most "+
			strconv.Itoa(depwatch.DefaultLimits.PerSet)+"); beyond it they look again by themselves, with backoff.")
}

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

package featuregate_test

import (
	"errors"
	"fmt"

	"k8s.io/utils/ptr"

	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// Each gate's effective state, and why, as the CustomFeatureGates status
// shows it: a Stable gate is always on; otherwise enabled decides when set,
// else default, else off.
func ExampleEffective() {
	for _, g := range []featuregate.Gate{
		{Name: "Autoscaling", PreRelease: featuregate.Stable, Enabled: ptr.To(false)},
		{Name: "Color", PreRelease: featuregate.Beta, Default: ptr.To(true)},
		{Name: "Storage", PreRelease: featuregate.Alpha, Enabled: ptr.To(true)},
		{Name: "Legacy", PreRelease: featuregate.Deprecated, Default: ptr.To(false)},
	} {
		on, reason := featuregate.Effective(g)
		fmt.Println(g.Name, on, reason)
	}
	// Output:
	// Autoscaling true StableAlwaysOn
	// Color true DefaultOn
	// Storage true ExplicitlyEnabled
	// Legacy false DefaultOff
}

// A gated path is written as CRD authors write them: a dot, then names.
func ExampleParsePath() {
	p, err := featuregate.ParsePath(".spec.autoscaling.maxReplicas")
	fmt.Println(p, err)
	_, err = featuregate.ParsePath("spec.autoscaling")
	fmt.Println(err)
	// Output:
	// .spec.autoscaling.maxReplicas <nil>
	// field path "spec.autoscaling" does not start with a dot and a field name
}

// No CustomFeatureGates may gate the operator's own CRDs.
func ExampleCheckTarget() {
	err := featuregate.CheckTarget("applysets.apply.applyset.dev")
	fmt.Println(errors.Is(err, featuregate.ErrOperatorCRD), featuregate.OperatorGroups)
	fmt.Println(featuregate.CheckTarget("widgets.example.com"))
	// Output:
	// true [apply.applyset.dev features.applyset.dev]
	// <nil>
}

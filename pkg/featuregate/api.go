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

package featuregate

import (
	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

// FromAPI converts the gates of a CustomFeatureGates spec. Every reader of the
// API (status, webhook, listing) goes through it, so they agree on each gate.
func FromAPI(gates []featuresv1alpha1.FeatureGate) []Gate {
	out := make([]Gate, 0, len(gates))
	for _, g := range gates {
		out = append(out, Gate{
			Name: g.Name, PreRelease: string(g.PreRelease), Default: g.Default, Enabled: g.Enabled,
			FieldPaths: g.FieldPaths, DeprecationWarning: g.DeprecationWarning,
		})
	}
	return out
}

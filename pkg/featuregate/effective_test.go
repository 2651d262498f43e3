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
	"testing"

	"k8s.io/utils/ptr"

	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

func TestEffective(t *testing.T) {
	tests := []struct {
		gate       featuregate.Gate
		want       bool
		wantReason string
	}{
		{featuregate.Gate{PreRelease: featuregate.Stable, Enabled: ptr.To(false)}, true, featuregate.ReasonStableAlwaysOn},
		{featuregate.Gate{PreRelease: featuregate.Alpha}, false, featuregate.ReasonDefaultOff},
		{featuregate.Gate{PreRelease: featuregate.Alpha, Enabled: ptr.To(true)}, true, featuregate.ReasonExplicitlyEnabled},
		{featuregate.Gate{PreRelease: featuregate.Beta, Default: ptr.To(true)}, true, featuregate.ReasonDefaultOn},
		{featuregate.Gate{PreRelease: featuregate.Beta, Default: ptr.To(true), Enabled: ptr.To(false)}, false, featuregate.ReasonExplicitlyDisabled},
		{featuregate.Gate{PreRelease: featuregate.Deprecated, Default: ptr.To(false)}, false, featuregate.ReasonDefaultOff},
	}
	for _, tt := range tests {
		if got, reason := featuregate.Effective(tt.gate); got != tt.want || reason != tt.wantReason {
			t.Errorf("featuregate.Effective(%+v) = %v, %s; want %v, %s", tt.gate, got, reason, tt.want, tt.wantReason)
		}
	}
}

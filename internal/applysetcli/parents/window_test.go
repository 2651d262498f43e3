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

package parents

import (
	"testing"

	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

func TestDescribeWindow(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   *applyv1alpha1.WindowStatus
		want string
	}{
		{"no windows", nil, ""},
		{"held by a deny window", &applyv1alpha1.WindowStatus{Held: ptr.To(true), Window: `Deny window "0 22 * * 5" for 58h0m0s (Europe/Berlin)`,
			NextChange: "2026-06-15T08:00:00+02:00"},
			`held by the Deny window "0 22 * * 5" for 58h0m0s (Europe/Berlin); next opening 2026-06-15T08:00:00+02:00`},
		{"outside every allow window", &applyv1alpha1.WindowStatus{Held: ptr.To(true), NextChange: "2026-06-11T09:00:00+02:00"},
			"held; next opening 2026-06-11T09:00:00+02:00"},
		{"open until a deny window", &applyv1alpha1.WindowStatus{Held: ptr.To(false), NextChange: "2026-06-12T22:00:00+02:00"},
			"open; held from 2026-06-12T22:00:00+02:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := describeWindow(tc.in); got != tc.want {
				t.Fatalf("describeWindow = %q, want %q", got, tc.want)
			}
		})
	}
}

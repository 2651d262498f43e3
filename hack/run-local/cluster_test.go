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

package main

import "testing"

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		cluster             string
		reachable, terminal bool
		want                target
		err                 bool
	}{
		{cluster: "", reachable: false, want: targetLocal},
		{cluster: "", reachable: true, want: targetLocal}, // no one to ask: never by surprise
		{cluster: "", reachable: true, terminal: true, want: targetAsk},
		{cluster: "", reachable: false, terminal: true, want: targetLocal},
		{cluster: "local", reachable: true, terminal: true, want: targetLocal},
		{cluster: "current", reachable: true, want: targetCurrent},
		{cluster: "current", reachable: true, terminal: true, want: targetCurrent},
		{cluster: "current", reachable: false, err: true},
		{cluster: "prod", reachable: true, err: true},
	} {
		got, err := decide(tc.cluster, tc.reachable, tc.terminal)
		if (err != nil) != tc.err || err == nil && got != tc.want {
			t.Errorf("decide(%q, reachable %v, terminal %v) = %v, %v; want %v (error %v)",
				tc.cluster, tc.reachable, tc.terminal, got, err, tc.want, tc.err)
		}
	}
}

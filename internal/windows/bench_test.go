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

package windows

import (
	"testing"
	"time"
)

// costly are 16 windows a tenant may write, as costly to decide as the
// schema allows: fifteen start every minute and stay open a month, so that
// finding where one closes follows a thousand overlapping openings, and one
// opens every minute for 30 seconds, so that the search for a change of the
// decision steps through its every opening and closing.
func costly(b *testing.B) []Window {
	b.Helper()
	out := make([]Window, 0, 16)
	for i := range 16 {
		duration := MaxDuration
		if i == 15 {
			duration = 30 * time.Second
		}
		w, err := Parse(Allow, "* * * * *", duration, "Europe/Berlin")
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}

// BenchmarkDecideCostly is the CPU one decision of the costliest windows
// takes: one group, and three (a set's own and its namespace's twice over).
func BenchmarkDecideCostly(b *testing.B) {
	t := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{1, 3} {
		groups := make([][]Window, n)
		for i := range groups {
			groups[i] = costly(b)
		}
		b.Run(map[int]string{1: "one-group", 3: "three-groups"}[n], func(b *testing.B) {
			for b.Loop() {
				DecideAll(groups, t)
			}
		})
	}
}

// BenchmarkDecideCostlyCached is the same decision asked again within the
// time it holds, as a set woken by one edit after another asks it: the
// ratio to BenchmarkDecideCostly is what the cache saves.
func BenchmarkDecideCostlyCached(b *testing.B) {
	t := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	groups := [][]Window{costly(b), costly(b), costly(b)}
	c := NewCache()
	c.DecideAll(groups, t)
	for b.Loop() {
		c.DecideAll(groups, t.Add(time.Second))
	}
}

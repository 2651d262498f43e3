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
	"fmt"
	"testing"
	"time"
)

// The cache answers as DecideAll does at every time: the same decision
// until its next change, a new one from then on, and one of its own for
// other windows.
func TestCacheDecidesAsDecideAll(t *testing.T) {
	friday := [][]Window{{must(t, Deny, "0 18 * * 5", 62*time.Hour, "Europe/Berlin")}}
	nights := [][]Window{{must(t, Allow, "0 22 * * *", 6*time.Hour, "UTC")}}
	c := NewCache()
	start := at(t, "2026-06-12T15:00:00Z") // a Friday, 17:00 in Berlin
	for step := range 3 * 24 * 4 {
		now := start.Add(time.Duration(step) * 15 * time.Minute)
		for _, groups := range [][][]Window{friday, nights} {
			got, want := c.DecideAll(groups, now), DecideAll(groups, now)
			if got.Allowed != want.Allowed || !got.Next.Equal(want.Next) || fmt.Sprint(got.By) != fmt.Sprint(want.By) {
				t.Fatalf("at %s: cached %+v, want %+v", now, got, want)
			}
		}
	}
	// A clock set back does not take a decision made later.
	if got, want := c.DecideAll(friday, start), DecideAll(friday, start); got.Allowed != want.Allowed || !got.Next.Equal(want.Next) {
		t.Errorf("at %s after later decisions: cached %+v, want %+v", start, got, want)
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := NewCache()
	now := at(t, "2026-06-12T15:00:00Z")
	for i := range maxCached + 10 {
		c.DecideAll([][]Window{{must(t, Deny, fmt.Sprintf("%d 3 * * *", i%60), time.Duration(i+1)*time.Second, "UTC")}}, now)
	}
	if len(c.entries) > maxCached {
		t.Errorf("%d entries; want at most %d", len(c.entries), maxCached)
	}
}

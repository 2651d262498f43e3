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

package requeue

import (
	"testing"
	"time"
)

func TestJitter(t *testing.T) {
	if got := Jitter(0); got != 0 {
		t.Errorf("Jitter(0) = %s, want 0", got)
	}
	for range 100 {
		if got := Jitter(10 * time.Minute); got < 10*time.Minute || got > 11*time.Minute {
			t.Fatalf("Jitter(10m) = %s, want within [10m, 11m]", got)
		}
	}
}

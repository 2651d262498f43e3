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

package featuregates

import (
	"strings"
	"testing"
)

func TestWarningsStayShort(t *testing.T) {
	long := ".spec." + strings.Repeat("nested.", 30) + "field not changed: feature gate DeepField is disabled"
	got := warnings("short", long)
	if len(got) != 2 || got[0] != "short" {
		t.Fatalf("warnings() = %q", got)
	}
	if len(got[1]) >= 120 || !strings.HasSuffix(got[1], "...") || !strings.HasPrefix(long, strings.TrimSuffix(got[1], "...")) {
		t.Errorf("a long warning became %q (%d bytes), want a prefix under 120 bytes ending in ...", got[1], len(got[1]))
	}
}

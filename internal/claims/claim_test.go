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

package claims

import (
	"fmt"
	"testing"
)

func TestParseOwner(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  Holder
		err   bool
	}{
		{value: "replica-a/0", want: Holder{Replica: "replica-a", Term: 0}},
		{value: "applyset-operator-7d9f.x/12", want: Holder{Replica: "applyset-operator-7d9f.x", Term: 12}},
		{value: "", err: true},
		{value: "replica-a", err: true},
		{value: "/3", err: true},
		{value: "a/b/3", err: true},
		{value: "a/-1", err: true},
		{value: "a/01", err: true},
		{value: "a/+1", err: true},
		{value: "a/", err: true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			got, err := ParseHolder(tc.value)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("ParseHolder(%q) = %v, %v; want %v, error %v", tc.value, got, err, tc.want, tc.err)
			}
		})
	}
}

func FuzzParseOwner(f *testing.F) {
	for _, seed := range []string{"replica-a/0", "a/12", "", "a/b/1", "a/-1", "a/01"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		o, err := ParseHolder(value)
		if err != nil {
			return
		}
		if o.String() != value {
			t.Fatalf("ParseHolder(%q) = %v, which writes %q", value, o, o.String())
		}
	})
}

func TestTarget(t *testing.T) {
	three := []string{"a", "b", "c"}
	if got := Target("ns/set", nil); got != "" {
		t.Fatalf("no replicas: got %q", got)
	}
	if got := Target("ns/set", []string{"a"}); got != "a" {
		t.Fatalf("one replica: got %q", got)
	}
	counts := map[string]int{}
	moved := 0
	for i := range 3000 {
		key := fmt.Sprintf("ns-%d/set-%d", i%7, i)
		got := Target(key, three)
		if again := Target(key, []string{"c", "a", "b"}); again != got {
			t.Fatalf("%s: %q, or %q in another order", key, got, again)
		}
		counts[got]++
		// A replica leaving moves only its own keys.
		if without := Target(key, []string{"a", "c"}); got != "b" && without != got {
			t.Fatalf("%s moved from %q to %q when b left", key, got, without)
		}
		// A replica joining takes keys only for itself.
		if with := Target(key, []string{"a", "b", "c", "d"}); with != got {
			if with != "d" {
				t.Fatalf("%s moved from %q to %q when d joined", key, got, with)
			}
			moved++
		}
	}
	for _, r := range three {
		if counts[r] < 800 || counts[r] > 1200 {
			t.Fatalf("uneven spread over three replicas: %v", counts)
		}
	}
	if moved < 600 || moved > 900 {
		t.Fatalf("a fourth replica took %d of 3000 keys, want about a quarter", moved)
	}
}

func BenchmarkTarget(b *testing.B) {
	replicas := []string{"applyset-operator-0", "applyset-operator-1", "applyset-operator-2"}
	for b.Loop() {
		Target("tenant-a/frontend", replicas)
	}
}

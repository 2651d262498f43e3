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

package health

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// pairs is a ConfigMap of keys whose check compares every pair of them.
func pairs(keys int) *unstructured.Unstructured {
	data := map[string]any{}
	for i := range keys {
		data[fmt.Sprintf("k%04d", i)] = "v"
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "pairs"}, "data": data}}
}

var pairCheck = Check{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Current: "self.data.all(a, self.data.all(b, a == b || self.data[a] == self.data[b]))"}

func TestCheckerBudget(t *testing.T) {
	tests := []struct {
		name     string
		budget   uint64
		objects  int
		judged   int
		spentMin uint64
	}{
		{name: "no budget judges all", budget: 0, objects: 5, judged: 5},
		{name: "a budget above the cost judges all", budget: 100_000_000, objects: 5, judged: 5},
		{name: "a budget of about two evaluations stops at the third", budget: 1_000_000, objects: 5, judged: 2, spentMin: 1_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checker, err := NewChecker([]Check{pairCheck})
			if err != nil {
				t.Fatal(err)
			}
			checker.Limit(tt.budget)
			judged := 0
			for range tt.objects {
				if r := checker.Judge(pairs(200)); r.Status == Current {
					judged++
				} else if !strings.Contains(r.Message, "not judged: the health checks spent their budget") {
					t.Fatalf("result %+v", r)
				}
			}
			if judged != tt.judged || checker.Exhausted() != (tt.judged < tt.objects) || checker.Spent() < tt.spentMin {
				t.Errorf("judged %d (want %d), exhausted %t, spent %d", judged, tt.judged, checker.Exhausted(), checker.Spent())
			}
		})
	}
	t.Run("kstatus costs nothing", func(t *testing.T) {
		checker, _ := NewChecker(nil)
		checker.Limit(1)
		for range 3 {
			if r := checker.Judge(pairs(1)); r.Status != Current {
				t.Fatalf("result %+v", r)
			}
		}
	})
}

// BenchmarkHealthCheckCost gives the time one unit of CEL's cost takes in
// a health check: the figure behind the per-evaluation limit and the
// per-set budget.
func BenchmarkHealthCheckCost(b *testing.B) {
	checker, err := NewChecker([]Check{pairCheck})
	if err != nil {
		b.Fatal(err)
	}
	obj := pairs(200)
	start := time.Now()
	for b.Loop() {
		checker.Judge(obj)
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(checker.Spent()), "ns/cost")
	b.ReportMetric(float64(checker.Spent())/float64(b.N), "cost/op")
}

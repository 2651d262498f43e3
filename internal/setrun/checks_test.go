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

package setrun

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

func TestChecker(t *testing.T) {
	check := func(apiVersion, current string) []applyv1alpha1.HealthCheck {
		return []applyv1alpha1.HealthCheck{{APIVersion: apiVersion, Kind: "Widget", Current: current}}
	}
	for _, tt := range []struct {
		name    string
		checks  []applyv1alpha1.HealthCheck
		wantErr string
	}{
		{name: "none: kstatus judges"},
		{name: "a check of its own", checks: check("example.com/v1", "has(self.status) && self.status.ready == true")},
		{name: "an apiVersion that does not parse", checks: check("example.com/v1/extra", "true"), wantErr: "spec.healthChecks"},
		{name: "an expression that does not compile", checks: check("example.com/v1", "self.status.("), wantErr: "spec.healthChecks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checker, err := Checker(tt.checks, DefaultHealthCheckBudget)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": "x"}}}
			if got := checker.Judge(cm); got.Status != "Current" {
				t.Errorf("a ConfigMap is %s, want Current", got.Status)
			}
		})
	}
}

// inventoryFits refuses, before anything is written, a set that could not
// record what it would label.
func TestInventoryFits(t *testing.T) {
	objects := func(n int) []apply.Object {
		out := make([]apply.Object, 0, n)
		for i := range n {
			obj := &unstructured.Unstructured{}
			obj.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
			obj.SetNamespace("team")
			obj.SetName(fmt.Sprintf("cm-%d", i))
			out = append(out, apply.Object{Input: apply.Input{Object: obj}})
		}
		return out
	}
	huge := testSet()
	huge.Spec.Resources = []applyv1alpha1.Resource{configMapOf("big", strings.Repeat("x", maxSetBytes))}
	for _, tt := range []struct {
		name        string
		set         *applyv1alpha1.ApplySet
		recorded    []string
		declared    int
		layout      inventory.Layout
		wantMembers int
		wantErr     string
	}{
		{name: "a small set", set: testSet(), declared: 3, layout: inventory.DefaultLayout, wantMembers: 3},
		{name: "members recorded and declared count once", set: testSet(), recorded: []string{"cm-0", "old"}, declared: 2,
			layout: inventory.DefaultLayout, wantMembers: 3},
		{name: "beyond status, in chunks", set: testSet(), declared: 50, layout: inventory.Layout{Inline: 10, PerChunk: 8},
			wantMembers: 50},
		{name: "more than any layout of chunks holds", set: testSet(), declared: 1100, layout: inventory.Layout{Inline: 1, PerChunk: 1, Most: 1},
			wantMembers: 1100, wantErr: "does not fit"},
		{name: "a spec that leaves no room for the record", set: huge, declared: 1, layout: inventory.DefaultLayout, wantMembers: 1,
			wantErr: "split it into several sets"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			members, err := inventoryFits(tt.set, inventory.FromStatus(recorded(tt.recorded...)), objects(tt.declared), tt.layout)
			if members != tt.wantMembers {
				t.Errorf("%d members, want %d", members, tt.wantMembers)
			}
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err %v, want %q", err, tt.wantErr)
			}
		})
	}
}

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
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// certificate is a Certificate-like object with a Ready condition of status ready, or none.
func certificate(ready string) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Certificate", "metadata": map[string]any{"name": "web"}}
	if ready != "" {
		obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready}}}
	}
	return &unstructured.Unstructured{Object: obj}
}

const readyTrue = "self.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')"

func TestConditionHolds(t *testing.T) {
	tests := []struct {
		name    string
		expr    string
		obj     *unstructured.Unstructured
		want    bool
		wantErr string
	}{
		{name: "a Ready condition that is True holds", expr: readyTrue, obj: certificate("True"), want: true},
		{name: "a Ready condition that is False does not", expr: readyTrue, obj: certificate("False")},
		{name: "a missing status fails the evaluation", expr: readyTrue, obj: certificate(""), wantErr: "no such key"},
		{name: "optional access reads a young object", expr: "status.?conditions.orValue([]).exists(c, c.status == 'True')",
			obj: certificate("")},
		{name: "top-level fields are variables", expr: "metadata.name == 'web'", obj: certificate(""), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cond, err := CompileCondition(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			checker := &Checker{}
			got, err := checker.Holds(cond, tt.obj)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Holds = %t, %v; want an error saying %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Holds = %t, %v; want %t", got, err, tt.want)
			}
			if checker.Spent() == 0 {
				t.Error("the evaluation cost nothing of the budget")
			}
		})
	}
}

func TestCompileCondition(t *testing.T) {
	for expr, wantErr := range map[string]string{
		"self.status ==":   "Syntax error",
		"'not a boolean'":  "not bool",
		"unknownVar.a":     "undeclared reference",
		"has(self.status)": "",
	} {
		_, err := CompileCondition(expr)
		if (err == nil) != (wantErr == "") || err != nil && !strings.Contains(err.Error(), wantErr) {
			t.Errorf("CompileCondition(%q) = %v; want %q", expr, err, wantErr)
		}
	}
}

func TestConditionSharesTheBudget(t *testing.T) {
	cond, err := CompileCondition(pairCheck.Current)
	if err != nil {
		t.Fatal(err)
	}
	checker, _ := NewChecker([]Check{pairCheck})
	checker.Limit(1_000_000)
	for range 3 {
		_, err = checker.Holds(cond, pairs(200))
	}
	if !errors.Is(err, errBudgetSpent) || !checker.Exhausted() {
		t.Fatalf("after three evaluations of about 500,000 each: %v, exhausted %t", err, checker.Exhausted())
	}
	if r := checker.Judge(pairs(1)); r.Status != Unknown {
		t.Errorf("a member judged after the conditions spent the budget: %+v", r)
	}
}

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

package featuregate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

func obj(t testing.TB, y string) map[string]any {
	t.Helper()
	if y == "" {
		return nil
	}
	out := map[string]any{}
	if err := yaml.Unmarshal([]byte(y), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func gates(t testing.TB, gs ...Gate) *Set {
	t.Helper()
	s, err := Compile(gs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func alpha(name string, enabled bool, paths ...string) Gate {
	return Gate{Name: name, PreRelease: Alpha, Enabled: ptr.To(enabled), FieldPaths: paths}
}

func canonical(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The 4-row table of seed 004: one gate on .spec.replicas.
func TestDropFourRowTable(t *testing.T) {
	request := "spec: {cronSpec: '* * * * */5', replicas: 3}"
	tests := []struct {
		row      int
		stored   string
		enabled  bool
		want     string
		dropped  bool
		keptFrom bool
	}{
		{row: 1, stored: "", enabled: false, want: "spec: {cronSpec: '* * * * */5'}", dropped: true},
		{row: 2, stored: "", enabled: true, want: request},
		{row: 3, stored: "spec: {cronSpec: x, replicas: 1}", enabled: false, want: "spec: {cronSpec: '* * * * */5', replicas: 1}", keptFrom: true},
		{row: 4, stored: "spec: {cronSpec: x, replicas: 1}", enabled: true, want: request},
		// Update rows where the stored object lacks the field behave as rows 1 and 2.
		{row: 1, stored: "spec: {cronSpec: x}", enabled: false, want: "spec: {cronSpec: '* * * * */5'}", dropped: true},
		{row: 2, stored: "spec: {cronSpec: x}", enabled: true, want: request},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("row %d stored=%q", tt.row, tt.stored), func(t *testing.T) {
			s := gates(t, alpha("ReplicasFeatureGate", tt.enabled, ".spec.replicas"))
			got := obj(t, request)
			outcome := s.Drop(got, obj(t, tt.stored))
			if canonical(t, got) != canonical(t, obj(t, tt.want)) {
				t.Errorf("object = %s, want %s", canonical(t, got), canonical(t, obj(t, tt.want)))
			}
			if (len(outcome.Dropped) > 0) != tt.dropped || (len(outcome.Kept) > 0) != tt.keptFrom {
				t.Errorf("outcome = %+v", outcome)
			}
			if tt.keptFrom && !strings.Contains(strings.Join(outcome.Warnings, "|"), ".spec.replicas not changed: feature gate ReplicasFeatureGate is disabled") {
				t.Errorf("warnings = %v", outcome.Warnings)
			}
		})
	}
}

// The 8-row parent/child table of seed 004: FooFeatureGate on .spec.foo,
// QuxFeatureGate on .spec.foo.qux; the request sets .spec.foo.baz=2 and .spec.foo.qux=3.
func TestDropEightRowTable(t *testing.T) {
	request := "spec: {foo: {baz: 2, qux: 3}}"
	stored := "spec: {foo: {qux: 1}}"
	tests := []struct {
		row      int
		stored   string
		foo, qux bool
		want     string
	}{
		{1, "", false, false, "spec: {}"},
		{2, "", false, true, "spec: {}"},
		{3, "", true, false, "spec: {foo: {baz: 2}}"},
		{4, "", true, true, "spec: {foo: {baz: 2, qux: 3}}"},
		{5, stored, false, false, "spec: {foo: {qux: 1}}"},
		{6, stored, false, true, "spec: {foo: {qux: 1}}"},
		{7, stored, true, false, "spec: {foo: {baz: 2, qux: 1}}"},
		{8, stored, true, true, "spec: {foo: {baz: 2, qux: 3}}"},
	}
	for _, tt := range tests {
		for _, order := range []string{"parent first", "child first"} {
			t.Run(fmt.Sprintf("row %d, gates %s", tt.row, order), func(t *testing.T) {
				foo, qux := alpha("FooFeatureGate", tt.foo, ".spec.foo"), alpha("QuxFeatureGate", tt.qux, ".spec.foo.qux")
				declared := []Gate{foo, qux}
				if order == "child first" {
					declared = []Gate{qux, foo}
				}
				got := obj(t, request)
				gates(t, declared...).Drop(got, obj(t, tt.stored))
				if canonical(t, got) != canonical(t, obj(t, tt.want)) {
					t.Errorf("object = %s, want %s", canonical(t, got), canonical(t, obj(t, tt.want)))
				}
			})
		}
	}
}

func TestDropLeavesNoEmptyMapsBehind(t *testing.T) {
	s := gates(t, alpha("Deep", false, ".spec.a.b.c"))
	got := obj(t, "spec: {a: {b: {c: 1}}, keep: {}}")
	s.Drop(got, nil)
	if want := `{"spec":{"keep":{}}}`; canonical(t, got) != want {
		t.Errorf("object = %s, want %s: maps the drop emptied go, others stay", canonical(t, got), want)
	}

	got = obj(t, "spec: {a: {b: {c: 1, d: 2}}}")
	s.Drop(got, nil)
	if want := `{"spec":{"a":{"b":{"d":2}}}}`; canonical(t, got) != want {
		t.Errorf("object = %s, want %s", canonical(t, got), want)
	}
}

func TestDropRestoresAFieldTheRequestRemoved(t *testing.T) {
	s := gates(t, alpha("Foo", false, ".spec.foo.bar"))
	got := obj(t, "spec: {other: 1}")
	outcome := s.Drop(got, obj(t, "spec: {foo: {bar: [1, 2]}}"))
	if want := `{"spec":{"foo":{"bar":[1,2]},"other":1}}`; canonical(t, got) != want {
		t.Errorf("object = %s, want %s", canonical(t, got), want)
	}
	if len(outcome.Kept["Foo"]) != 1 {
		t.Errorf("outcome = %+v", outcome)
	}
}

func TestDeprecatedWarnings(t *testing.T) {
	s := gates(t,
		Gate{Name: "Legacy", PreRelease: Deprecated, Default: ptr.To(true), FieldPaths: []string{".spec.color"},
			DeprecationWarning: "spec.color is deprecated; use spec.theme"},
		Gate{Name: "Old", PreRelease: Deprecated, Default: ptr.To(true), FieldPaths: []string{".spec.size"}},
	)
	outcome := s.Drop(obj(t, "spec: {color: red, size: "+strings.Repeat("9", 10)+"}"), nil)
	want := []string{"spec.color is deprecated; use spec.theme", ".spec.size is deprecated (feature gate Old)"}
	if strings.Join(outcome.Warnings, "|") != strings.Join(want, "|") {
		t.Errorf("warnings = %q, want %q", outcome.Warnings, want)
	}
	if outcome.Changed() {
		t.Errorf("enabled Deprecated gates changed the request: %+v", outcome)
	}
	if got := s.Drop(obj(t, "spec: {theme: dark}"), nil); len(got.Warnings) != 0 {
		t.Errorf("warnings for unset fields: %v", got.Warnings)
	}
}

func TestCompileRejects(t *testing.T) {
	for _, gs := range [][]Gate{
		{alpha("A", false, "spec.a")},
		{alpha("A", false, ".")},
		{alpha("A", false, ".spec..a")},
		{alpha("A", false, ".spec.a"), alpha("B", true, ".spec.a")},
	} {
		if _, err := Compile(gs); err == nil {
			t.Errorf("Compile(%+v): want an error", gs)
		}
	}
}

// FuzzDrop drops random gates from random objects: it never panics, never
// touches a field outside the gated paths, and dropping twice changes nothing more.
func FuzzDrop(f *testing.F) {
	f.Add(`{"spec":{"foo":{"baz":2,"qux":3}}}`, `{"spec":{"foo":{"qux":1}}}`, ".spec.foo", ".spec.foo.qux", uint8(1))
	f.Add(`{"spec":{"a":[1,{"b":null}]}}`, ``, ".spec.a", ".status.x", uint8(2))
	f.Fuzz(func(t *testing.T, request, stored, path1, path2 string, enabled uint8) {
		var newObj, oldObj map[string]any
		if json.Unmarshal([]byte(request), &newObj) != nil || newObj == nil {
			return
		}
		if stored != "" && json.Unmarshal([]byte(stored), &oldObj) != nil {
			return
		}
		s, err := Compile([]Gate{alpha("One", enabled&1 == 1, path1), alpha("Two", enabled&2 == 2, path2)})
		if err != nil {
			return
		}
		before := runtime.DeepCopyJSON(newObj)
		s.Drop(newObj, oldObj)
		once := runtime.DeepCopyJSON(newObj)
		s.Drop(newObj, oldObj)
		if canonical(t, once) != canonical(t, newObj) {
			t.Fatalf("a second drop changed %s into %s", canonical(t, once), canonical(t, newObj))
		}
		// Outside the gated paths (and the maps a removal may empty), nothing changes.
		for _, p := range []string{path1, path2} {
			names := strings.Split(strings.TrimPrefix(p, "."), ".")
			removeForCompare(before, names)
			removeForCompare(once, names)
		}
		pruneEmpty(before)
		pruneEmpty(once)
		if canonical(t, before) != canonical(t, once) {
			t.Fatalf("a field outside the gated paths changed: %s -> %s", canonical(t, before), canonical(t, once))
		}
	})
}

func removeForCompare(obj map[string]any, names []string) {
	cur := obj
	for _, n := range names[:len(names)-1] {
		next, ok := cur[n].(map[string]any)
		if !ok {
			return
		}
		cur = next
	}
	delete(cur, names[len(names)-1])
}

func pruneEmpty(m map[string]any) {
	for k, v := range m {
		if child, ok := v.(map[string]any); ok {
			pruneEmpty(child)
			if len(child) == 0 {
				delete(m, k)
			}
		}
	}
}

// BenchmarkDrop measures 10 gates over 50 paths on a typical object.
func BenchmarkDrop(b *testing.B) {
	var gs []Gate
	var spec strings.Builder
	spec.WriteString("spec: {")
	for g := range 10 {
		var paths []string
		for p := range 5 {
			paths = append(paths, fmt.Sprintf(".spec.group%d.field%d", g, p))
		}
		gs = append(gs, alpha(fmt.Sprintf("Gate%d", g), g%2 == 0, paths...))
		fmt.Fprintf(&spec, "group%d: {field0: 1, field1: two, field2: [3], field3: {x: 4}, field4: true, other: 5}, ", g)
	}
	spec.WriteString("replicas: 3}")
	s := gates(b, gs...)
	request := obj(b, spec.String())
	stored := obj(b, "spec: {group1: {field0: 0}, group3: {field2: [1]}}")
	b.ReportAllocs()
	for b.Loop() {
		s.Drop(runtime.DeepCopyJSON(request), stored)
	}
}

// BenchmarkDropCopyBaseline is the copy of the request that BenchmarkDrop makes
// each time; subtract it to read the cost of Drop itself.
func BenchmarkDropCopyBaseline(b *testing.B) {
	var spec strings.Builder
	spec.WriteString("spec: {")
	for g := range 10 {
		fmt.Fprintf(&spec, "group%d: {field0: 1, field1: two, field2: [3], field3: {x: 4}, field4: true, other: 5}, ", g)
	}
	spec.WriteString("replicas: 3}")
	request := obj(b, spec.String())
	b.ReportAllocs()
	for b.Loop() {
		_ = runtime.DeepCopyJSON(request)
	}
}

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
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// keys are the few names random objects and paths are made of, so that paths
// often meet objects, share parents and nest.
var keys = []string{"spec", "a", "b", "c"}

// randomValue is a JSON value: maps more often than not, so that paths reach
// deep, and every other kind in between.
func randomValue(r *rand.Rand, depth int) any {
	switch n := r.IntN(10); {
	case depth < 4 && n < 5:
		m := map[string]any{}
		for range r.IntN(4) {
			m[keys[r.IntN(len(keys))]] = randomValue(r, depth+1)
		}
		return m
	case n == 5:
		return []any{int64(r.IntN(3)), "x"}
	case n == 6:
		return "s" + string(rune('0'+r.IntN(3)))
	case n == 7:
		return r.IntN(2) == 0
	case n == 8:
		return 1.5
	default:
		return int64(r.IntN(3))
	}
}

// randomObject is an object with .spec, .status or both.
func randomObject(r *rand.Rand) map[string]any {
	out := map[string]any{}
	for _, top := range []string{"spec", "status"} {
		if r.IntN(4) > 0 {
			out[top] = randomValue(r, 1)
		}
	}
	return out
}

// randomGates are up to six gates over distinct paths under .spec and .status,
// one to four names deep and made of two names only, so that they nest and
// share parents; each is on or off, some Deprecated.
func randomGates(r *rand.Rand) []Gate {
	seen := map[string]bool{}
	var out []Gate
	for i := range 1 + r.IntN(6) {
		path := []string{".spec", ".status"}[r.IntN(4)/3]
		for range r.IntN(4) {
			path += "." + keys[1+r.IntN(2)]
		}
		if path == ".status" || seen[path] {
			path += ".d"
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		g := Gate{Name: "G" + string(rune('A'+i)), PreRelease: Alpha, FieldPaths: []string{path}}
		on := r.IntN(2) == 0
		g.Enabled = &on
		if r.IntN(4) == 0 {
			g.PreRelease, g.Default = Deprecated, &on
		}
		out = append(out, g)
	}
	return out
}

// checkPolicyMatchesDrop compiles random gates into a policy and runs it, and
// Drop, on a random request and stored object: both must store the same.
func checkPolicyMatchesDrop(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed>>32))
	gs := randomGates(r)
	set, err := Compile(gs)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	request := randomObject(r)
	var stored map[string]any
	if r.IntN(3) > 0 {
		stored = randomObject(r)
		// Updates often resend the stored object with a change or two.
		if r.IntN(2) == 0 {
			stored = jsonCopy(t, request)
			stored["spec"] = randomValue(r, 1)
		}
	}

	plant(r, gs, request, stored)

	// The webhook drops on the request as decoded from JSON.
	want := jsonCopy(t, request)
	set.Drop(want, jsonCopy(t, stored))

	p := set.Policies(Target{CRD: "crontabs.stable.example.com", Group: "stable.example.com", Version: "v1", Plural: "crontabs"})
	got := jsonCopy(t, request)
	if p.Mutating != nil {
		if got, err = evalPolicy(p.Mutating, request, stored); err != nil {
			t.Fatalf("seed %d: %v\ngates %+v", seed, err, gs)
		}
	}
	if canonical(t, got) != canonical(t, want) {
		t.Fatalf("seed %d: gates %s\nrequest %s\nstored  %s\npolicy  %s\nDrop    %s",
			seed, canonical(t, gs), canonical(t, request), canonical(t, stored), canonical(t, got), canonical(t, want))
	}
}

// plant sets most gated paths in the request, and in the stored object when
// there is one, to the same or another value, so that gates meet fields and
// removals and restores share parents.
func plant(r *rand.Rand, gs []Gate, request, stored map[string]any) {
	for _, g := range gs {
		names := strings.Split(g.FieldPaths[0][1:], ".")
		value := randomValue(r, len(names))
		if r.IntN(3) > 0 {
			put(request, names, value)
		}
		if stored != nil && r.IntN(3) > 0 {
			if r.IntN(2) == 0 {
				value = randomValue(r, len(names))
			}
			put(stored, names, runtime.DeepCopyJSONValue(value))
		}
	}
}

func jsonCopy(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	if v == nil {
		return nil
	}
	return obj(t, canonical(t, v))
}

func TestPolicyMatchesDrop(t *testing.T) {
	n := uint64(3000)
	if testing.Short() {
		n = 300
	}
	for seed := range n {
		checkPolicyMatchesDrop(t, seed)
	}
}

// FuzzPolicyMatchesDrop searches seeds for a request on which the compiled
// policy and Drop disagree.
func FuzzPolicyMatchesDrop(f *testing.F) {
	f.Add(uint64(1))
	f.Fuzz(checkPolicyMatchesDrop)
}

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

package kbuild

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestChildEnvironHoldsNothingOfTheOperators(t *testing.T) {
	t.Setenv("APPLYSET_TEST_TOKEN", "secret")
	bounds := boundsFor(64 << 20)
	env := childEnviron(bounds, 16)
	want := []string{childEnv + "=67108864/201326592", "PATH=", "GOMAXPROCS=2"}
	if !slices.Equal(env, want) {
		t.Fatalf("childEnviron = %q, want %q", env, want)
	}
	for _, kv := range os.Environ() {
		if slices.Contains(env, kv) && kv != "PATH=" {
			t.Errorf("the child inherits %q", kv)
		}
	}
	if got := childEnviron(bounds, 1); got[2] != "GOMAXPROCS=1" {
		t.Errorf("on one processor: %q", got[2])
	}
	value, _ := strings.CutPrefix(env[0], childEnv+"=")
	if got, err := parseChildBounds(value); err != nil || got != bounds {
		t.Errorf("parseChildBounds(%q) = %+v, %v; want %+v", value, got, err, bounds)
	}
	for _, bad := range []string{"1", "0/5", "5/-1", "a/b", "1/2/3x"} {
		if _, err := parseChildBounds(bad); err == nil {
			t.Errorf("parseChildBounds(%q) passed", bad)
		}
	}
}

func TestExitErrorSaysWhatEndedTheBuild(t *testing.T) {
	limits := Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxMemory: 64 << 20}
	outOfAddressSpace := "runtime: out of memory: cannot allocate 37748736-byte block (226131968 in use)\nfatal error: out of memory\n\ngoroutine 1"
	for _, tt := range []struct {
		name    string
		code    int
		message string
		crash   string
		want    string // "" for a crash of the child's own
		limit   bool
	}{
		{name: "the heap bound", code: exitMemory, want: "the build needs more than 64 MiB of memory", limit: true},
		{name: "the address-space bound", code: exitRuntime, crash: outOfAddressSpace, want: "the build needs more than 64 MiB of memory", limit: true},
		{name: "arena metadata past the bound", code: exitRuntime, crash: "fatal error: out of memory allocating heap arena metadata\n",
			want: "the build needs more than 64 MiB of memory", limit: true},
		{name: "a panic", code: exitRuntime, crash: "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1"},
		{name: "a panic that names memory", code: exitRuntime, crash: "panic: key \"fatal error: out of memory\"\n"},
		{name: "output", code: exitBytes, want: "the build would produce more than 1 MiB", limit: true},
		{name: "objects", code: exitObjects, want: "the build would produce more than 10 objects", limit: true},
		{name: "a failed build", code: 1, message: "accumulating resources: missing\n", want: "building k.yaml: accumulating resources: missing"},
		{name: "a signal", code: -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := exitError("k.yaml", tt.code, tt.message, tt.crash, limits)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("got %v, want a crash of the child's own", err)
				}
				return
			}
			wantErr(t, err, tt.want)
			var limit *LimitError
			if errors.As(err, &limit) != tt.limit {
				t.Errorf("%v: a *LimitError %t, want %t", err, !tt.limit, tt.limit)
			}
		})
	}
}

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
	"testing"
)

// TestKeyOfIsWhatABuildIsAFunctionOf: the same files give the same key
// whatever tree holds them; any byte, path, directory or bound that can
// change a build gives another.
func TestKeyOfIsWhatABuildIsAFunctionOf(t *testing.T) {
	base := map[string]string{"app/kustomization.yaml": "resources: [a.yaml]", "app/a.yaml": "kind: ConfigMap"}
	limits := Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxDepth: 16, MaxMemory: 1 << 28}
	want := KeyOf(tree(t, base), "app", limits)
	if got := KeyOf(tree(t, base), "app", Limits{MaxObjects: 1, MaxBytes: 1, MaxDepth: 16, MaxMemory: 1 << 28}); got != want {
		t.Errorf("the bounds a cached build is checked against on a hit changed the key")
	}
	for name, got := range map[string]Key{
		"a byte of a file":       KeyOf(tree(t, map[string]string{"app/kustomization.yaml": "resources: [a.yaml]", "app/a.yaml": "kind: Secret"}), "app", limits),
		"a path":                 KeyOf(tree(t, map[string]string{"app/kustomization.yaml": "resources: [a.yaml]", "app/b.yaml": "kind: ConfigMap"}), "app", limits),
		"a file added":           KeyOf(tree(t, map[string]string{"app/kustomization.yaml": "resources: [a.yaml]", "app/a.yaml": "kind: ConfigMap", "x": ""}), "app", limits),
		"the directory":          KeyOf(tree(t, base), "", limits),
		"the depth":              KeyOf(tree(t, base), "app", Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxDepth: 1, MaxMemory: 1 << 28}),
		"the memory":             KeyOf(tree(t, base), "app", Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxDepth: 16, MaxMemory: 1 << 20}),
		"a name moved into data": KeyOf(tree(t, map[string]string{"app/kustomization.yaml": "resources: [a.yaml]app/a.yaml", "a": "kind: ConfigMap"}), "app", limits),
	} {
		if got == want {
			t.Errorf("%s did not change the key", name)
		}
	}
}

func TestCache(t *testing.T) {
	doc := func(n int) []Document { return []Document{{Name: "kustomization.yaml", Data: make([]byte, n)}} }
	key := func(b byte) Key { return Key{b} }
	roomy := Limits{MaxBytes: 1 << 20}
	c := NewCache(400)
	c.Add(key(1), doc(100))
	c.Add(key(2), doc(100))
	c.Add(key(3), doc(101)) // more than a quarter: never kept
	if got, ok, err := c.Get(key(1), roomy); !ok || err != nil || len(got[0].Data) != 100 {
		t.Fatalf("a kept build: %v %v %v", got, ok, err)
	}
	if _, ok, _ := c.Get(key(3), roomy); ok {
		t.Errorf("a build larger than a quarter of the cache was kept")
	}
	var limit *LimitError
	if _, ok, err := c.Get(key(1), Limits{MaxBytes: 99}); !ok || !errors.As(err, &limit) {
		t.Errorf("a hit larger than the set's bytes left: %v %v, want a LimitError", ok, err)
	}
	// 1 was used last: adding three more drops 2, the least recently used.
	c.Add(key(4), doc(100))
	c.Add(key(5), doc(100))
	c.Add(key(6), doc(100))
	if _, ok, _ := c.Get(key(2), roomy); ok {
		t.Errorf("the least recently used build was kept past the bound")
	}
	for _, k := range []byte{1, 4, 5, 6} {
		if _, ok, _ := c.Get(key(k), roomy); !ok {
			t.Errorf("build %d dropped", k)
		}
	}
	if c.Len() != 4 {
		t.Errorf("%d builds kept, want 4", c.Len())
	}
	var off *Cache
	off.Add(key(1), doc(1))
	if _, ok, _ := off.Get(key(1), roomy); ok || NewCache(0).Len() != 0 {
		t.Errorf("a nil or empty cache kept a build")
	}
}

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

package ui

import (
	"testing"
)

func TestParseSetPath(t *testing.T) {
	for _, tc := range []struct {
		path                  string
		namespace, kind, name string
		ok                    bool
	}{
		{"/sets/shop/secret/web", "shop", "secret", "web", true},
		{"/sets/shop/applyset.apply.applyset.dev/web", "shop", "applyset.apply.applyset.dev", "web", true},
		{"/sets/_/clusterapplyset.apply.applyset.dev/platform", "", "clusterapplyset.apply.applyset.dev", "platform", true},
		{"/sets/shop/configmap/a.b-c", "shop", "configmap", "a.b-c", true},
		{"/sets/shop/secret", "", "", "", false},
		{"/sets/shop/secret/web/extra", "", "", "", false},
		{"/sets/shop/secret/", "", "", "", false},
		{"/sets//secret/web", "", "", "", false},
		{"/sets/Shop/secret/web", "", "", "", false},
		{"/sets/shop/secret/..", "", "", "", false},
		{"/sets/shop/secret/a%2Fb", "", "", "", false},
		{"/sets/shop/secret/%zz", "", "", "", false},
		{"/sets/shop.x/secret/web", "", "", "", false},
		{"/set/shop/secret/web", "", "", "", false},
		{"/sets/shop/Secret/web", "", "", "", false},
	} {
		ns, kind, name, err := parseSetPath(tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok=%v", tc.path, err, tc.ok)
			continue
		}
		if tc.ok && (ns != tc.namespace || kind != tc.kind || name != tc.name) {
			t.Errorf("%s: got %q %q %q, want %q %q %q", tc.path, ns, kind, name, tc.namespace, tc.kind, tc.name)
		}
	}
}

func TestSetPathOf(t *testing.T) {
	if got, want := setPathOf("", "clusterapplyset.apply.applyset.dev/platform"), "/sets/_/clusterapplyset.apply.applyset.dev/platform"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := setPathOf("shop", "secret/web"), "/sets/shop/secret/web"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// FuzzParseSetPath: any path either is refused or names a set whose page's
// path reads back the same.
func FuzzParseSetPath(f *testing.F) {
	for _, seed := range []string{"/sets/shop/secret/web", "/sets/_/clusterapplyset.apply.applyset.dev/p", "/sets/a/b/c/d", "/sets/%2F/x/y", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, path string) {
		ns, kind, name, err := parseSetPath(path)
		if err != nil {
			return
		}
		if kind == "" || name == "" {
			t.Fatalf("%q: empty kind or name", path)
		}
		ns2, kind2, name2, err := parseSetPath(setPath(ns, kind, name))
		if err != nil || ns2 != ns || kind2 != kind || name2 != name {
			t.Fatalf("%q: round trip gave %q %q %q, %v", path, ns2, kind2, name2, err)
		}
	})
}

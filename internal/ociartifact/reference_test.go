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

package ociartifact

import (
	"strings"
	"testing"
)

func FuzzParseURL(f *testing.F) {
	for _, seed := range []string{"oci://registry.example.com/team/app", "oci://127.0.0.1:5000/a", "oci://[::1]:5000/a/b", "oci://h/a:v1", "oci://h/a@sha256:00", "https://h/a"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, url string) {
		repo, err := ParseURL(url)
		if err != nil {
			return
		}
		if repo.Host == "" || repo.Path == "" || strings.ContainsAny(repo.Path, ":@") {
			t.Fatalf("%q read as host %q, path %q", url, repo.Host, repo.Path)
		}
		again, err := ParseURL(repo.String())
		if err != nil || again != repo {
			t.Fatalf("%q read as %+v, which reads back as %+v, %v", url, repo, again, err)
		}
	})
}

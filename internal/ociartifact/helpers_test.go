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
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var testLimits = PullLimits{
	MaxManifestBytes: 64 << 10,
	MaxLayerBytes:    1 << 20,
	Extract:          artifact.Limits{MaxBytes: 4 << 20, MaxFiles: 100, MaxPathLength: 256},
}

// testRegistry serves an in-memory registry on loopback over plain HTTP,
// behind wrap if given, and counts the requests that reach it.
type testRegistry struct {
	host string
	hits atomic.Int32
}

func newTestRegistry(t *testing.T, wrap func(http.Handler) http.Handler) *testRegistry {
	t.Helper()
	reg := &testRegistry{}
	handler := testenv.RegistryHandler(nil)
	if wrap != nil {
		handler = wrap(handler)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reg.hits.Add(1)
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	reg.host = strings.TrimPrefix(srv.URL, "http://")
	return reg
}

func (r *testRegistry) url(path string) string {
	return Scheme + r.host + "/" + path
}

// options reach the registry over plain HTTP, which the policy allows.
func (r *testRegistry) options(t *testing.T) Options {
	t.Helper()
	return Options{Policy: policy(t, "http://"+r.host), Insecure: true}
}

func policy(t *testing.T, allowed ...string) *fetchpolicy.Policy {
	t.Helper()
	p, err := fetchpolicy.Parse(allowed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func tree(t *testing.T, files map[string]string) *artifact.Tree {
	t.Helper()
	raw := map[string][]byte{}
	for k, v := range files {
		raw[k] = []byte(v)
	}
	tr, err := artifact.NewTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func contents(tr *artifact.Tree) map[string]string {
	out := map[string]string{}
	for _, p := range tr.Paths() {
		data, _ := tr.File(p)
		out[p] = string(data)
	}
	return out
}

func push(t *testing.T, files map[string]string, url, tag string, meta Metadata, opts Options) string {
	t.Helper()
	digest, err := Push(context.Background(), tree(t, files), url, tag, meta, opts)
	if err != nil {
		t.Fatal(err)
	}
	return digest
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, part := range parts {
		if !strings.Contains(err.Error(), part) {
			t.Fatalf("got %v, want an error containing %q", err, part)
		}
	}
}

// basicAuth lets through only requests that carry user:password.
func basicAuth(user, password string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != password {
				w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

var created = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

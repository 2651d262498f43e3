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

package fluxsource

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
)

func tarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	raw := map[string][]byte{}
	for name, data := range files {
		raw[name] = []byte(data)
	}
	tree, err := artifact.NewTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tree.WriteTarGzip(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serve serves body at every path and counts the requests.
func serve(t *testing.T, body []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if strings.HasSuffix(r.URL.Path, "/missing.tar.gz") {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

var limits = Limits{MaxTarballBytes: 1 << 20, Extract: artifact.Limits{MaxBytes: 1 << 20, MaxFiles: 100, MaxPathLength: 256}}

func loopback(t *testing.T) Hosts {
	t.Helper()
	p, err := fetchpolicy.Parse([]string{"http://127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	return Hosts{Policy: p}
}

// app is the object of most tests' artifacts, and dir where it is served.
var app = Owner{Kind: "GitRepository", Namespace: "team", Name: "app"}

const dir = "/gitrepository/team/app/"

func TestFetch(t *testing.T) {
	body := tarball(t, map[string]string{"app/cm.yaml": "kind: ConfigMap\n"})
	srv, hits := serve(t, body)
	good := digest.FromBytes(body).String()
	localhost := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	at := func(base, file, sum string) Artifact {
		return Artifact{URL: base + dir + file, Digest: sum, Owner: app}
	}
	for _, tc := range []struct {
		name      string
		artifact  Artifact
		limits    Limits
		want      string // part of the error; "" for none
		wantIs    error
		wantFetch bool
	}{
		{name: "a matching digest", artifact: at(srv.URL, "a.tar.gz", good), wantFetch: true},
		{name: "a sha512 digest", artifact: at(srv.URL, "a.tar.gz", digest.SHA512.FromBytes(body).String()), wantFetch: true},
		{name: "another digest", artifact: at(srv.URL, "a.tar.gz", digest.FromString("other").String()),
			want: "status.artifact.digest is sha256:", wantIs: errDigestMismatch, wantFetch: true},
		{name: "a digest of an unknown algorithm", artifact: at(srv.URL, "a.tar.gz", "md5:0123"),
			want: `status.artifact.digest "md5:0123"`, wantIs: ErrInvalidArtifact},
		{name: "a host the policy leaves out", artifact: at(localhost, "a.tar.gz", good),
			want: "is not among the hosts sets may fetch from", wantIs: ErrHostRefused},
		{name: "https to a host allowed over http only", artifact: at(strings.Replace(srv.URL, "http:", "https:", 1), "a.tar.gz", good),
			want: "HTTP response to HTTPS client"},
		{name: "a scheme other than http", artifact: Artifact{URL: "file:///etc/passwd", Digest: good, Owner: app}, want: "only http and https"},
		{name: "credentials in the url", artifact: at("http://u:p@127.0.0.1", "a.tar.gz", good), want: "holds no credentials"},
		{name: "a missing tarball", artifact: at(srv.URL, "missing.tar.gz", good), want: "404 Not Found", wantFetch: true},
		{name: "a tarball over the limit", artifact: at(srv.URL, "a.tar.gz", good),
			limits: Limits{MaxTarballBytes: 10, Extract: limits.Extract}, wantIs: artifact.ErrTooLarge, wantFetch: true},
		{name: "files over the limit", artifact: at(srv.URL, "a.tar.gz", good),
			limits: Limits{MaxTarballBytes: 1 << 20, Extract: artifact.Limits{MaxBytes: 1 << 20, MaxFiles: 1, MaxPathLength: 256}},
			wantIs: ErrInvalidArtifact, wantFetch: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := limits
			if tc.limits.MaxTarballBytes != 0 {
				l = tc.limits
			}
			before := hits.Load()
			files, err := Fetch(context.Background(), loopback(t), tc.artifact, l)
			if fetched := hits.Load() > before; fetched != tc.wantFetch {
				t.Errorf("fetched: %v, want %v", fetched, tc.wantFetch)
			}
			if tc.want == "" && tc.wantIs == nil {
				if err != nil {
					t.Fatal(err)
				}
				if data, ok := files.File("app/cm.yaml"); !ok || string(data) != "kind: ConfigMap\n" {
					t.Errorf("app/cm.yaml: %q, %v", data, ok)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error %q is not %v", err, tc.wantIs)
			}
		})
	}
}

func TestArtifactOf(t *testing.T) {
	obj := func(status map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
			"metadata": map[string]any{"namespace": "team", "name": "app"}}}
		if status != nil {
			u.Object["status"] = status
		}
		return u
	}
	got, err := ArtifactOf(obj(map[string]any{"artifact": map[string]any{
		"url": "http://sc/a.tar.gz", "digest": "sha256:00", "revision": "main@sha1:1", "path": "a.tar.gz"}}))
	if err != nil || got != (Artifact{URL: "http://sc/a.tar.gz", Digest: "sha256:00", Revision: "main@sha1:1", Owner: app}) {
		t.Errorf("ArtifactOf: %+v, %v", got, err)
	}
	for _, tc := range []struct {
		name   string
		status map[string]any
		want   string
		wantIs error
	}{
		{name: "no status", want: "GitRepository team/app has no artifact yet", wantIs: ErrNoArtifact},
		{name: "not ready", status: map[string]any{"conditions": []any{map[string]any{
			"type": "Ready", "status": "False", "reason": "GitOperationFailed", "message": "authentication required"}}},
			want: "(Ready=False, GitOperationFailed: authentication required)", wantIs: ErrNoArtifact},
		{name: "no url", status: map[string]any{"artifact": map[string]any{"digest": "sha256:00"}}, want: "status.artifact has no url"},
		{name: "no digest", status: map[string]any{"artifact": map[string]any{"url": "http://sc/a"}}, want: "has no digest"},
		{name: "a url of another type", status: map[string]any{"artifact": map[string]any{"url": int64(1)}}, want: "status.artifact.url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ArtifactOf(obj(tc.status))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v does not say %q", err, tc.want)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error %q is not %v", err, tc.wantIs)
			}
		})
	}
}

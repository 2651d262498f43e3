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
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var files = map[string]string{
	"kustomization.yaml": "resources: [cm.yaml]\n",
	"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
	"sub/dir/x.json":     "{}",
}

func TestPushThenPullByTag(t *testing.T) {
	reg := newTestRegistry(t, nil)
	opts := reg.options(t)
	meta := Metadata{Source: "https://github.com/example/repo", Revision: "main@sha1:abc", Created: created}
	pushed := push(t, files, reg.url("team/app"), "v1", meta, opts)

	pulled, err := Pull(context.Background(), reg.url("team/app"), Version{Tag: "v1"}, opts, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Digest != pushed {
		t.Errorf("pulled digest %s, pushed %s", pulled.Digest, pushed)
	}
	if diff := cmp.Diff(files, contents(pulled.Files)); diff != "" {
		t.Errorf("files (-pushed +pulled):\n%s", diff)
	}
	wantAnnotations := map[string]string{
		CreatedAnnotation:  "2026-01-02T03:04:05Z",
		SourceAnnotation:   meta.Source,
		RevisionAnnotation: meta.Revision,
	}
	if diff := cmp.Diff(wantAnnotations, pulled.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if again := push(t, files, reg.url("team/app"), "v1", meta, opts); again != pushed {
		t.Errorf("pushing the same files and metadata again gave %s, first %s", again, pushed)
	}
}

func TestPullByDigest(t *testing.T) {
	reg := newTestRegistry(t, nil)
	opts := reg.options(t)
	first := push(t, files, reg.url("app"), "v1", Metadata{Created: created}, opts)
	// The tag moves on; the digest still names the first artifact.
	push(t, map[string]string{"other.yaml": "x: 1"}, reg.url("app"), "v1", Metadata{Created: created}, opts)

	pulled, err := Pull(context.Background(), reg.url("app"), Version{Digest: first}, opts, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Digest != first {
		t.Errorf("pulled %s, want %s", pulled.Digest, first)
	}
	if diff := cmp.Diff(files, contents(pulled.Files)); diff != "" {
		t.Errorf("files (-first +pulled):\n%s", diff)
	}
}

func TestPullRefuses(t *testing.T) {
	reg := newTestRegistry(t, nil)
	opts := reg.options(t)
	v1 := push(t, files, reg.url("app"), "v1", Metadata{Created: created}, opts)
	v2 := push(t, map[string]string{"b.yaml": "b: 2"}, reg.url("app"), "v2", Metadata{Created: created}, opts)
	absent := "sha256:" + strings.Repeat("0", 64)

	tests := []struct {
		name    string
		url     string
		version Version
		want    []string
	}{
		{"a missing tag", reg.url("app"), Version{Tag: "v9"}, []string{`tag "v9" not found`, reg.url("app")}},
		{"a missing repository", reg.url("nothing"), Version{Tag: "v1"}, []string{`tag "v1" not found`}},
		{"a missing digest", reg.url("app"), Version{Digest: absent}, []string{"digest " + absent + " not found"}},
		{"a tag that moved from the pinned digest", reg.url("app"), Version{Tag: "v2", Digest: v1}, []string{`tag "v2" resolves to ` + v2 + ", not the pinned digest " + v1}},
		{"an invalid digest", reg.url("app"), Version{Digest: "sha256:abc"}, []string{`digest "sha256:abc"`}},
		{"an invalid tag", reg.url("app"), Version{Tag: "-v1"}, []string{`tag "-v1"`}},
		{"no version", reg.url("app"), Version{}, []string{"a tag or a digest is needed"}},
		{"a URL without oci://", "https://" + reg.host + "/app", Version{Tag: "v1"}, []string{"must begin with oci://"}},
		{"a URL with a tag", reg.url("app:v1"), Version{Tag: "v1"}, []string{"give the tag or digest apart"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Pull(context.Background(), tt.url, tt.version, opts, testLimits)
			wantErr(t, err, tt.want...)
		})
	}
}

func TestPullWithCredentials(t *testing.T) {
	reg := newTestRegistry(t, basicAuth("alice", "s3cret"))
	opts := reg.options(t)
	opts.DockerConfigJSON = testenv.DockerConfig(reg.host, "alice", "s3cret")
	digest := push(t, files, reg.url("private"), "v1", Metadata{Created: created}, opts)

	pulled, err := Pull(context.Background(), reg.url("private"), Version{Tag: "v1"}, opts, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Digest != digest {
		t.Errorf("pulled %s, pushed %s", pulled.Digest, digest)
	}

	wrong := reg.options(t)
	wrong.DockerConfigJSON = testenv.DockerConfig(reg.host, "mallory", "guess")
	_, err = Pull(context.Background(), reg.url("private"), Version{Tag: "v1"}, wrong, testLimits)
	wantErr(t, err, "the registry refused the credentials (401)", reg.url("private"))

	anonymous := reg.options(t)
	_, err = Pull(context.Background(), reg.url("private"), Version{Tag: "v1"}, anonymous, testLimits)
	wantErr(t, err, "the registry asks for credentials and none were given")

	elsewhere := reg.options(t)
	elsewhere.DockerConfigJSON = testenv.DockerConfig("registry.example.com", "alice", "s3cret")
	before := reg.hits.Load()
	_, err = Pull(context.Background(), reg.url("private"), Version{Tag: "v1"}, elsewhere, testLimits)
	wantErr(t, err, "holds no credentials for "+reg.host, "registry.example.com")
	if reg.hits.Load() != before {
		t.Error("a request was sent without the credentials the Secret was given for")
	}
}

func TestPullFromAnUnreachableRegistry(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := listener.Addr().String()
	if err := listener.Close(); err != nil {
		t.Fatal(err)
	}
	opts := Options{Policy: policy(t, "http://"+host), Insecure: true}
	_, err = Pull(context.Background(), Scheme+host+"/app", Version{Tag: "v1"}, opts, testLimits)
	wantErr(t, err, Scheme+host+"/app", "connection refused")
}

func TestPullFollowsTheHostPolicy(t *testing.T) {
	reg := newTestRegistry(t, nil)
	push(t, files, reg.url("app"), "v1", Metadata{Created: created}, reg.options(t))

	tests := []struct {
		name     string
		opts     Options
		want     string
		requests bool
	}{{
		name: "a host not allowed",
		opts: Options{Policy: policy(t, "registry.example.com"), Insecure: true},
		want: "is not among the hosts",
	}, {
		name: "plain HTTP asked for, the host allowed over HTTPS only",
		opts: Options{Policy: policy(t, reg.host), Insecure: true},
		want: "HTTPS only",
	}, {
		name:     "plain HTTP allowed by the host, not asked for: HTTPS is tried",
		opts:     Options{Policy: policy(t, "http://"+reg.host)},
		want:     "http: server gave HTTP response to HTTPS client",
		requests: true,
	}, {
		name: "no policy",
		opts: Options{Insecure: true},
		want: "no host policy",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := reg.hits.Load()
			_, err := Pull(context.Background(), reg.url("app"), Version{Tag: "v1"}, tt.opts, testLimits)
			wantErr(t, err, tt.want)
			if !tt.requests && reg.hits.Load() != before {
				t.Errorf("%d requests reached the registry", reg.hits.Load()-before)
			}
		})
	}
}

func TestPullDetectsAManifestThatIsNotWhatItsDigestSays(t *testing.T) {
	// The registry swaps bytes in every manifest it serves, keeping sizes.
	tamper := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/manifests/") {
				next.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(&swapWriter{ResponseWriter: w, from: "original", to: "tampered"}, r)
		})
	}
	reg := newTestRegistry(t, tamper)
	opts := reg.options(t)
	digest := push(t, files, reg.url("app"), "v1", Metadata{Revision: "original", Created: created}, opts)

	for _, version := range []Version{{Tag: "v1"}, {Digest: digest}} {
		_, err := Pull(context.Background(), reg.url("app"), version, opts, testLimits)
		wantErr(t, err, "reading the manifest", "mismatch")
	}
}

// swapWriter replaces from with to, of the same length, in what it writes.
type swapWriter struct {
	http.ResponseWriter
	from, to string
}

func (w *swapWriter) Write(p []byte) (int, error) {
	return w.ResponseWriter.Write([]byte(strings.ReplaceAll(string(p), w.from, w.to)))
}

func TestPullIgnoresDockerConfigOnDisk(t *testing.T) {
	reg := newTestRegistry(t, basicAuth("alice", "s3cret"))
	opts := reg.options(t)
	opts.DockerConfigJSON = testenv.DockerConfig(reg.host, "alice", "s3cret")
	push(t, files, reg.url("private"), "v1", Metadata{Created: created}, opts)

	// A docker config on disk holds the right credentials: it must not be
	// used.
	dockerDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dockerDir, "config.json"), testenv.DockerConfig(reg.host, "alice", "s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dockerDir)
	t.Setenv("HOME", dockerDir)

	anonymous := reg.options(t)
	_, err := Pull(context.Background(), reg.url("private"), Version{Tag: "v1"}, anonymous, testLimits)
	wantErr(t, err, "the registry asks for credentials and none were given")
}

func TestPullSendsTokenRequestsThroughThePolicy(t *testing.T) {
	for _, realm := range []string{"https://auth.example.com/token", "http://169.254.169.254/latest/meta-data"} {
		t.Run(realm, func(t *testing.T) {
			bearer := func(http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`",service="registry",scope="repository:app:pull"`)
					w.WriteHeader(http.StatusUnauthorized)
				})
			}
			reg := newTestRegistry(t, bearer)
			opts := reg.options(t)
			opts.DockerConfigJSON = testenv.DockerConfig(reg.host, "alice", "s3cret")
			_, err := Pull(context.Background(), reg.url("app"), Version{Tag: "v1"}, opts, testLimits)
			wantErr(t, err, "is not among the hosts sets may fetch from")
		})
	}
}

func TestPullMarksOnlyRefusedArtifactsInvalid(t *testing.T) {
	reg := newTestRegistry(t, nil)
	opts := reg.options(t)
	push(t, map[string]string{"a.yaml": "a: 1", "b.yaml": "b: 2"}, reg.url("app"), "v1", Metadata{Created: created}, opts)

	oneFile := testLimits
	oneFile.Extract.MaxFiles = 1
	_, err := Pull(context.Background(), reg.url("app"), Version{Tag: "v1"}, opts, oneFile)
	if !errors.Is(err, ErrInvalidArtifact) {
		t.Errorf("an artifact beyond the limits: want ErrInvalidArtifact, got %v", err)
	}
	_, err = Pull(context.Background(), reg.url("app"), Version{Tag: "v9"}, opts, testLimits)
	if err == nil || errors.Is(err, ErrInvalidArtifact) {
		t.Errorf("a missing tag is no refused artifact: %v", err)
	}
}

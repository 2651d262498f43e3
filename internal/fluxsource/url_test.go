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
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
)

func policy(t testing.TB, entries ...string) *fetchpolicy.Policy {
	t.Helper()
	p, err := fetchpolicy.Parse(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sc is source-controller's host, and producer that of another producer
// of ExternalArtifacts, both allowed.
const (
	sc       = "http://source-controller.flux-system"
	producer = "https://producer.example.com"
)

func TestCheckURLKeepsToTheObjectsPath(t *testing.T) {
	allowed := policy(t, "http://source-controller.flux-system", "producer.example.com", "elsewhere.example.com")
	external := Owner{Kind: ExternalArtifact, Namespace: "team", Name: "rendered"}
	for _, tc := range []struct {
		name     string
		url      string
		owner    Owner
		external []string // --external-artifact-hosts
		wantIs   error    // nil: accepted
	}{
		{name: "its own path", url: sc + dir + "0123abcd.tar.gz", owner: app},
		{name: "a file name with dots", url: sc + dir + "v1.2.3+build.tgz", owner: app},
		{name: "another namespace's path", url: sc + "/gitrepository/other/app/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "another object's path", url: sc + "/gitrepository/team/db/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "another kind's path", url: sc + "/ocirepository/team/app/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "a name it prefixes", url: sc + "/gitrepository/team/apple/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "the kind as written, not lower-cased", url: sc + "/GitRepository/team/app/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "the directory itself", url: sc + dir, owner: app, wantIs: ErrForeignPath},
		{name: "a file below the directory", url: sc + dir + "sub/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "the root", url: sc, owner: app, wantIs: ErrForeignPath},
		{name: "..", url: sc + dir + "../../other/app/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "%2e%2e", url: sc + dir + "%2e%2e/%2e%2e/other/app/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "%2E%2E", url: sc + dir + "%2E%2E/%2E%2E/other/app/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "%252e%252e, .. to a server that decodes twice", url: sc + dir + "%252e%252e/x.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "%2F", url: sc + dir + "..%2F..%2F..%2Fother%2Fapp%2F0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "%2F without dots", url: sc + "/gitrepository/team/app%2Fx/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "a letter escaped", url: sc + dir + "%30123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "a double slash", url: sc + dir + "/0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "a leading double slash", url: sc + "/" + dir + "0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "a dot", url: sc + dir + "./0123abcd.tar.gz", owner: app, wantIs: ErrForeignPath},
		{name: "a backslash", url: sc + dir + `..\..\elsewhere\app\x.tar.gz`, owner: app, wantIs: ErrForeignPath},
		{name: "a query", url: sc + dir + "0123abcd.tar.gz?path=../../other", owner: app, wantIs: ErrForeignPath},
		{name: "an empty query", url: sc + dir + "0123abcd.tar.gz?", owner: app, wantIs: ErrForeignPath},
		{name: "a fragment", url: sc + dir + "0123abcd.tar.gz#x", owner: app, wantIs: ErrForeignPath},
		{name: "an object of no namespace", url: sc + "/gitrepository//app/0123abcd.tar.gz",
			owner: Owner{Kind: "GitRepository", Name: "app"}, wantIs: ErrForeignPath},
		{name: "a host the policy leaves out", url: "http://other.example.com" + dir + "x.tar.gz", owner: app, wantIs: ErrHostRefused},
		{name: "an ExternalArtifact at its own path", url: producer + "/externalartifact/team/rendered/x.tar.gz", owner: external},
		{name: "an ExternalArtifact elsewhere on its host, without the flag", url: producer + "/team/rendered.tgz",
			owner: external, wantIs: ErrForeignPath},
		{name: "an ExternalArtifact elsewhere on its host, with the flag", url: producer + "/team/rendered.tgz?sig=1",
			owner: external, external: []string{"producer.example.com"}},
		{name: "an ExternalArtifact at another namespace's path of source-controller, with the flag for another host",
			url: sc + "/gitrepository/other/app/x.tar.gz", owner: external, external: []string{"producer.example.com"}, wantIs: ErrForeignPath},
		{name: "an ExternalArtifact on another allowed host, with the flag for its producer's",
			url: "https://elsewhere.example.com/other/app.tgz", owner: external, external: []string{"producer.example.com"}, wantIs: ErrForeignPath},
		{name: "an ExternalArtifact on a flagged host the policy leaves out", url: "https://flagged.example.com/app.tgz",
			owner: external, external: []string{"flagged.example.com"}, wantIs: ErrHostRefused},
		{name: "a GitRepository elsewhere on an ExternalArtifact host", url: producer + "/team/app.tgz",
			owner: app, external: []string{"producer.example.com"}, wantIs: ErrForeignPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosts := Hosts{Policy: allowed}
			if tc.external != nil {
				hosts.External = policy(t, tc.external...)
			}
			_, err := CheckURL(hosts, Artifact{URL: tc.url, Digest: "sha256:00", Owner: tc.owner})
			switch {
			case tc.wantIs == nil && err != nil:
				t.Fatalf("%s refused: %v", tc.url, err)
			case tc.wantIs != nil && !errors.Is(err, tc.wantIs):
				t.Fatalf("%s: error %v is not %v", tc.url, err, tc.wantIs)
			}
		})
	}
}

// redirector serves body at dir/a.tar.gz, redirects from the paths of
// redirects to their URLs, and counts the requests for any other path.
func redirector(t *testing.T, body []byte, redirects *sync.Map) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var strays atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if to, ok := redirects.Load(r.URL.Path); ok {
			http.Redirect(w, r, to.(string), http.StatusFound)
			return
		}
		if r.URL.Path != dir+"a.tar.gz" {
			strays.Add(1)
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &strays
}

func TestFetchFollowsRedirectsOnlyWithinTheObjectsPath(t *testing.T) {
	body := tarball(t, map[string]string{"app/cm.yaml": "kind: ConfigMap\n"})
	var redirects sync.Map
	srv, strays := redirector(t, body, &redirects)
	sum := digest.FromBytes(body).String()
	byName := "http://localhost:" + srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	hosts := Hosts{Policy: policy(t, "http://127.0.0.1", "http://localhost")}
	external := Owner{Kind: ExternalArtifact, Namespace: "team", Name: "app"}
	for i, tc := range []struct {
		name     string
		from     string // the path redirected from
		to       string
		owner    Owner
		external bool
		want     string // part of the error; "" for none
	}{
		{name: "within its path", from: dir, to: srv.URL + dir + "a.tar.gz", owner: app},
		{name: "to another namespace's path", from: dir, to: srv.URL + "/gitrepository/other/app/a.tar.gz",
			owner: app, want: "not under its object's own path"},
		{name: "to an escaped path", from: dir, to: srv.URL + dir + "%2e%2e/%2e%2e/other/app/a.tar.gz",
			owner: app, want: "not under its object's own path"},
		{name: "to a relative path out of it", from: dir, to: "../../other/app/a.tar.gz", owner: app, want: "not under its object's own path"},
		{name: "to another allowed host", from: dir, to: byName + dir + "a.tar.gz", owner: app, want: "leaves its host"},
		{name: "an ExternalArtifact of a flagged host, anywhere on it", from: "/anywhere/", to: srv.URL + "/elsewhere/a.tar.gz",
			owner: external, external: true},
		{name: "an ExternalArtifact of a flagged host, to another host", from: "/anywhere/", to: byName + "/externalartifact/team/app/a.tar.gz",
			owner: external, external: true, want: "leaves its host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from := tc.from + "redirect-" + strconv.Itoa(i)
			redirects.Store(from, tc.to)
			h := hosts
			if tc.external {
				h.External = policy(t, "127.0.0.1")
			}
			before := strays.Load()
			_, err := Fetch(context.Background(), h, Artifact{URL: srv.URL + from, Digest: sum, Owner: tc.owner}, limits)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v does not say %q", err, tc.want)
			case tc.want != "" && strays.Load() != before:
				t.Errorf("the refused redirect was followed")
			}
		})
	}
}

// TestDigestMismatchTellsNothingOfTheBytesServed: were the url another
// team's artifact, a digest of its bytes in the message would let the next
// status name them.
func TestDigestMismatchTellsNothingOfTheBytesServed(t *testing.T) {
	body := tarball(t, map[string]string{"secret/cm.yaml": "kind: ConfigMap\ndata: {password: hunter2}\n"})
	srv, _ := serve(t, body)
	for _, claimed := range []digest.Digest{digest.FromString("another"), digest.SHA384.FromString("another"), digest.SHA512.FromString("another")} {
		_, err := Fetch(context.Background(), loopback(t), Artifact{URL: srv.URL + dir + "a.tar.gz", Digest: claimed.String(), Owner: app}, limits)
		if !errors.Is(err, errDigestMismatch) {
			t.Fatalf("%s: error %v is not %v", claimed, err, errDigestMismatch)
		}
		for _, served := range []digest.Digest{digest.FromBytes(body), digest.SHA384.FromBytes(body), digest.SHA512.FromBytes(body)} {
			if strings.Contains(err.Error(), served.Encoded()[:16]) {
				t.Errorf("%s: error %q tells the digest of the bytes served", claimed, err)
			}
		}
		if strings.Contains(err.Error(), strconv.Itoa(len(body))) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: error %q tells of the bytes served", claimed, err)
		}
		if !strings.Contains(err.Error(), claimed.String()) {
			t.Errorf("%s: error %q does not name the status's digest", claimed, err)
		}
	}
}

// FuzzCheckURL: whatever URL CheckURL lets a GitRepository's artifact be
// fetched from, the request a server receives for it names a host the
// policy allows and, decoded once or twice, one file of the object's
// directory.
func FuzzCheckURL(f *testing.F) {
	for _, seed := range []string{
		sc + dir + "a.tar.gz", sc + dir + "../x", sc + dir + "%2e%2e/x", sc + dir + "a%2Fb", sc + dir + "a?b", sc + "//" + dir[1:] + "a",
		sc + dir + "%252e%252e/x", sc + dir + `a\b`, "http://[::1]" + dir + "a", "http://user@source-controller.flux-system" + dir + "a",
		"source-controller.flux-system" + dir + "a", sc + dir + "a#b", sc + dir + ";a", sc + dir + "a%20b",
	} {
		f.Add(seed)
	}
	hosts := Hosts{Policy: policy(f, "http://source-controller.flux-system")}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := CheckURL(hosts, Artifact{URL: raw, Digest: "sha256:00", Owner: app})
		if err != nil {
			return
		}
		req, err := http.NewRequest(http.MethodGet, u.String(), nil)
		if err != nil {
			t.Fatalf("%q passed, yet makes no request: %v", raw, err)
		}
		if host := strings.TrimSuffix(strings.ToLower(req.URL.Hostname()), "."); host != "source-controller.flux-system" || req.URL.Scheme != "http" {
			t.Fatalf("%q passed, for host %q over %s", raw, req.URL.Host, req.URL.Scheme)
		}
		target := req.URL.RequestURI()
		received, err := url.ParseRequestURI(target)
		if err != nil || received.RawQuery != "" {
			t.Fatalf("%q passed, and is received as %q: %v", raw, target, err)
		}
		twice, err := url.PathUnescape(received.Path)
		for _, p := range []string{received.Path, twice} {
			file, ok := strings.CutPrefix(path.Clean(p), dir)
			if err != nil || p != path.Clean(p) || !ok || file == "" || strings.ContainsAny(file, `/\`) {
				t.Fatalf("%q passed, and is received as %q, path %q", raw, target, p)
			}
		}
	})
}

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

package declared

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/opencontainers/go-digest"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
)

// otherTeam serves another namespace's artifact, as source-controller
// would at /gitrepository/other/app/, and counts the requests.
func otherTeam(t *testing.T) (srv *httptest.Server, sum digest.Digest, body []byte, hits *atomic.Int32) {
	t.Helper()
	tree, err := artifact.NewTree(map[string][]byte{"deploy/a.yaml": []byte(documents(1))})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tree.WriteTarGzip(&buf); err != nil {
		t.Fatal(err)
	}
	hits = &atomic.Int32{}
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write(buf.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv, digest.FromBytes(buf.Bytes()), buf.Bytes(), hits
}

func loopbackArtifacts(t *testing.T) *Artifacts {
	t.Helper()
	policy, err := fetchpolicy.Parse([]string{"http://127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	return &Artifacts{Policy: policy}
}

// TestGatherFetchesAFluxArtifactOnlyFromItsObjectsPath: a tenant who may
// write the status of their GitRepository names another namespace's
// artifact on source-controller's host, whose digest they learnt; the set
// reads none of it.
func TestGatherFetchesAFluxArtifactOnlyFromItsObjectsPath(t *testing.T) {
	srv, sum, _, hits := otherTeam(t)
	for _, path := range []string{"/gitrepository/other/app/a.tar.gz", "/gitrepository/shop/app/..%2F..%2Fother%2Fapp%2Fa.tar.gz",
		"/gitrepository/shop/app/%2e%2e/%2e%2e/other/app/a.tar.gz", "/ocirepository/shop/app/a.tar.gz"} {
		reader := fluxReader(nil, gitRepository(srv.URL+path, sum.String()))
		_, err := GatherWith(context.Background(), reader, fluxApplySet(applyv1alpha1.FluxSourceGitRepository), DefaultLimits, loopbackArtifacts(t))
		if err == nil {
			t.Fatalf("%s: the artifact of another object's path was read", path)
		}
		if !errors.Is(err, ErrArtifactUnavailable) || !strings.Contains(err.Error(), "GitRepository shop/app names an artifact the operator may not fetch") ||
			!strings.Contains(err.Error(), "/gitrepository/shop/app/") {
			t.Errorf("%s: error %q does not say the path is not the object's", path, err)
		}
		if strings.Contains(err.Error(), "--artifact-allowed-hosts") {
			t.Errorf("%s: error %q advises a flag that cannot help", path, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests reached another object's path", hits.Load())
	}
}

// TestGatherDigestMismatchTellsNothingOfTheBytesServed: the message of a
// tarball that does not match its status's digest names that digest only.
func TestGatherDigestMismatchTellsNothingOfTheBytesServed(t *testing.T) {
	srv, served, body, _ := otherTeam(t)
	claimed := digest.FromString("a guess")
	reader := fluxReader(nil, gitRepository(srv.URL+"/gitrepository/shop/app/a.tar.gz", claimed.String()))
	_, err := GatherWith(context.Background(), reader, fluxApplySet(applyv1alpha1.FluxSourceGitRepository), DefaultLimits, loopbackArtifacts(t))
	if err == nil || !errors.Is(err, ErrArtifactUnavailable) || !strings.Contains(err.Error(), claimed.String()) {
		t.Fatalf("error %v does not say the tarball does not match %s", err, claimed)
	}
	if strings.Contains(err.Error(), served.Encoded()[:16]) || strings.Contains(err.Error(), " "+strconv.Itoa(len(body))+" ") {
		t.Errorf("error %q tells of the bytes served", err)
	}
}

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
	_ "crypto/sha256" // digests of tarballs
	_ "crypto/sha512" // source-controller's --artifact-digest-algo may be sha384 or sha512
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/opencontainers/go-digest"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
)

// userAgent names the operator to the servers of artifacts.
const userAgent = "applyset-operator"

// errDigestMismatch marks a tarball whose bytes do not hash to the digest
// its object names: a tarball replaced while it was read, or one that is
// not what the object's writer said. Nothing of it is used.
var errDigestMismatch = errors.New("the tarball does not match the artifact's digest")

// ErrInvalidArtifact marks a tarball refused for what it holds, after its
// digest matched: fetching it again gives the same answer until the object
// names another.
var ErrInvalidArtifact = errors.New("invalid artifact")

// Limits bound a fetch. Every field must be positive.
type Limits struct {
	// MaxTarballBytes bounds the tarball as served, compressed.
	MaxTarballBytes int64
	// Extract bounds the tarball once decompressed.
	Extract artifact.Limits
}

// Fetch reads the tarball a names from its URL, which CheckURL must let
// hosts fetch, as every redirect (plain HTTP only where the policy allows
// that, for an http:// URL), within limits; checks that its bytes hash to
// a's digest, before a byte of it is decompressed; and extracts it.
func Fetch(ctx context.Context, hosts Hosts, a Artifact, limits Limits) (*artifact.Tree, error) {
	if limits.MaxTarballBytes <= 0 {
		return nil, fmt.Errorf("every limit must be positive: %+v", limits)
	}
	want, err := parseDigest(a.Digest)
	if err != nil {
		return nil, err
	}
	u, err := CheckURL(hosts, a)
	if err != nil {
		return nil, err
	}
	data, err := download(ctx, hosts, a.Owner, u, limits.MaxTarballBytes)
	if err != nil {
		return nil, err
	}
	// Nothing of the bytes served is told, not even their digest: were the
	// url another's, the digest would let the next status name them.
	if want.Algorithm().FromBytes(data) != want {
		return nil, fmt.Errorf("%s: %w: status.artifact.digest is %s", u.Redacted(), errDigestMismatch, want)
	}
	files, err := artifact.Extract(bytes.NewReader(data), limits.Extract)
	if err != nil {
		return nil, invalid{fmt.Errorf("%s@%s: %w", u.Redacted(), want, err)}
	}
	return files, nil
}

// download reads the body of a GET of u, of at most maxBytes, following
// only redirects checkParsed lets owner's artifact be fetched from.
func download(ctx context.Context, hosts Hosts, owner Owner, u *url.URL, maxBytes int64) ([]byte, error) {
	client := hosts.Policy.HTTPClient(nil, u.Scheme == schemeHTTP)
	defer client.CloseIdleConnections()
	checkRedirects(client, hosts, owner)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the artifact: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: the server answered %s", u.Redacted(), resp.Status)
	}
	if resp.ContentLength > maxBytes {
		return nil, invalid{fmt.Errorf("%s: the tarball's %d bytes are beyond the limit of %d: %w", u.Redacted(), resp.ContentLength, maxBytes, artifact.ErrTooLarge)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the tarball: %w", u.Redacted(), err)
	}
	if int64(len(data)) > maxBytes {
		return nil, invalid{fmt.Errorf("%s: the tarball is beyond the limit of %d bytes: %w", u.Redacted(), maxBytes, artifact.ErrTooLarge)}
	}
	return data, nil
}

// parseDigest reads an artifact's digest, of an algorithm this binary can
// compute.
func parseDigest(raw string) (digest.Digest, error) {
	d, err := digest.Parse(raw)
	if err != nil {
		return "", invalid{fmt.Errorf("status.artifact.digest %q: %w", raw, err)}
	}
	if !d.Algorithm().Available() {
		return "", invalid{fmt.Errorf("status.artifact.digest %q: algorithm %s: only sha256, sha384 and sha512 are checked", raw, d.Algorithm())}
	}
	return d, nil
}

// invalid is an error of an artifact's content; it reads as the error it wraps.
type invalid struct{ error }

func (e invalid) Unwrap() error { return e.error }

func (e invalid) Is(target error) bool { return target == ErrInvalidArtifact }

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

// Package fluxsource reads the artifacts of Flux source objects
// (GitRepository, OCIRepository, ExternalArtifact) as Flux's
// kustomize-controller does: the status.artifact of the object names a
// gzip-compressed tarball by URL and digest; the tarball is fetched over
// HTTP, from an allowed host and only at the object's own path of
// source-controller's storage (whoever writes the status chooses the URL),
// its bytes are hashed and compared with the digest before any of it is
// decompressed, and it is then extracted within bounds.
//
// Objects are read as unstructured data: the package needs three fields of
// their status, not source-controller's Go types.
package fluxsource

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API of Flux's source objects.
var GroupVersion = schema.GroupVersion{Group: "source.toolkit.fluxcd.io", Version: "v1"}

// Resources are the resources of the kinds a set may name, by kind.
var Resources = map[string]string{
	"GitRepository":    "gitrepositories",
	"OCIRepository":    "ocirepositories",
	"ExternalArtifact": "externalartifacts",
}

// ErrNoArtifact marks a source object that names no artifact yet: its
// source-controller (or, for an ExternalArtifact, its producer) has not
// written one. It is a wait, not a refusal.
var ErrNoArtifact = errors.New("no artifact yet")

// Artifact is what a source object's status.artifact says of the tarball
// it serves.
type Artifact struct {
	// URL is where the tarball is served, over HTTP(S).
	URL string
	// Digest is <algorithm>:<hex> of the tarball's bytes.
	Digest string
	// Revision names the upstream version, e.g. main@sha1:<commit>.
	Revision string
	// Owner is the object whose status names the artifact: its URL must be
	// under the object's own path.
	Owner Owner
}

// ArtifactOf reads obj's status.artifact. An object without one gives
// ErrNoArtifact, with what its Ready condition says; one whose artifact
// lacks a URL or a digest is refused.
func ArtifactOf(obj *unstructured.Unstructured) (Artifact, error) {
	owner := Owner{Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
	what := owner.String()
	field, found, err := unstructured.NestedFieldNoCopy(obj.Object, "status", "artifact")
	if err != nil {
		return Artifact{}, fmt.Errorf("%s: status.artifact: %w", what, err)
	}
	raw, ok := field.(map[string]any)
	if found && field != nil && !ok {
		return Artifact{}, fmt.Errorf("%s: status.artifact is a %T, not an object", what, field)
	}
	if !found || raw == nil {
		return Artifact{}, fmt.Errorf("%s has no artifact yet%s: %w", what, readiness(obj), ErrNoArtifact)
	}
	a := Artifact{Owner: owner}
	for field, into := range map[string]*string{"url": &a.URL, "digest": &a.Digest, "revision": &a.Revision} {
		v, _, err := unstructured.NestedString(raw, field)
		if err != nil {
			return Artifact{}, fmt.Errorf("%s: status.artifact.%s: %w", what, field, err)
		}
		*into = v
	}
	switch {
	case a.URL == "":
		return Artifact{}, fmt.Errorf("%s: status.artifact has no url", what)
	case a.Digest == "":
		return Artifact{}, fmt.Errorf("%s: status.artifact has no digest: the artifact cannot be checked", what)
	}
	return a, nil
}

// readiness says what the object's Ready condition says, if it has one.
func readiness(obj *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != "Ready" {
			continue
		}
		out := fmt.Sprintf(" (Ready=%v", m["status"])
		if reason, ok := m["reason"].(string); ok && reason != "" {
			out += ", " + reason
		}
		if msg, ok := m["message"].(string); ok && msg != "" {
			out += ": " + msg
		}
		return out + ")"
	}
	return ""
}

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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
)

// ErrInvalidArtifact marks an artifact Pull refuses for what it holds, not
// for how it was reached: its manifest, its layer or its files. Fetching it
// again gives the same answer until someone pushes another.
var ErrInvalidArtifact = errors.New("invalid artifact")

// refusal is an error of an artifact's content; it reads as the error it wraps.
type refusal struct{ error }

func (r refusal) Unwrap() error { return r.error }

func (r refusal) Is(target error) bool { return target == ErrInvalidArtifact }

func refuse(err error) error { return refusal{err} }

// PullLimits bound what Pull reads. Every field must be positive.
type PullLimits struct {
	// MaxManifestBytes bounds the manifest.
	MaxManifestBytes int64
	// MaxLayerBytes bounds the layer as stored, compressed.
	MaxLayerBytes int64
	// Extract bounds the layer once decompressed.
	Extract artifact.Limits
}

// Pulled is an artifact read from a registry.
type Pulled struct {
	// Digest is the manifest's digest: what the tag pointed to when read.
	Digest string
	// Annotations are the manifest's annotations.
	Annotations map[string]string
	// Files are the layer's files.
	Files *artifact.Tree
}

// Pull reads the artifact at version of the repository at url.
//
// A tag is resolved to a digest on every call. A digest given pins the
// artifact: the manifest read must hash to it, and a tag given with it must
// still point to it. The manifest must be an OCI image manifest (indexes
// and Docker manifests are refused) holding exactly one layer, of media
// type fluxContentMediaType or ociLayerMediaType; the config is not read.
// The layer is read whole, within limits.MaxLayerBytes, and its digest
// checked, before a byte of it is decompressed.
func Pull(ctx context.Context, url string, version Version, opts Options, limits PullLimits) (*Pulled, error) {
	if limits.MaxManifestBytes <= 0 || limits.MaxLayerBytes <= 0 {
		return nil, fmt.Errorf("every limit must be positive: %+v", limits)
	}
	repo, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	if err := version.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", repo, err)
	}
	client, err := opts.repository(repo)
	if err != nil {
		return nil, err
	}
	client.MaxMetadataBytes = limits.MaxManifestBytes
	desc, err := resolve(ctx, client, repo, version)
	if err != nil {
		return nil, err
	}
	manifest, err := fetchManifest(ctx, client, repo, desc, limits.MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	layer, err := contentLayer(repo, desc, manifest, limits.MaxLayerBytes)
	if err != nil {
		return nil, err
	}
	files, err := fetchLayer(ctx, client, repo, layer, limits.Extract)
	if err != nil {
		return nil, err
	}
	return &Pulled{Digest: desc.Digest.String(), Annotations: manifest.Annotations, Files: files}, nil
}

// resolve finds the manifest's descriptor: by tag, checked against the
// digest when both are given, or by digest alone.
func resolve(ctx context.Context, client *remote.Repository, repo Repository, version Version) (ocispec.Descriptor, error) {
	reference := version.Tag
	if reference == "" {
		reference = version.Digest
	}
	desc, err := client.Resolve(ctx, reference)
	if errors.Is(err, errdef.ErrNotFound) {
		return ocispec.Descriptor{}, fmt.Errorf("%s: %s not found: %w", repo, describe(version), err)
	}
	if err != nil {
		return ocispec.Descriptor{}, explain(ctx, fmt.Sprintf("%s: resolving %s", repo, describe(version)), err)
	}
	if version.Digest != "" && desc.Digest.String() != version.Digest {
		return ocispec.Descriptor{}, fmt.Errorf("%s: %s resolves to %s, not the pinned digest %s", repo, describe(version), desc.Digest, version.Digest)
	}
	return desc, nil
}

func describe(version Version) string {
	if version.Tag != "" {
		return fmt.Sprintf("tag %q", version.Tag)
	}
	return fmt.Sprintf("digest %s", version.Digest)
}

// fetchManifest reads the manifest desc names and checks that its bytes
// hash to desc's digest, which the registry cannot then lie about.
func fetchManifest(ctx context.Context, client *remote.Repository, repo Repository, desc ocispec.Descriptor, maxBytes int64) (*ocispec.Manifest, error) {
	what := fmt.Sprintf("%s@%s", repo, desc.Digest)
	if desc.MediaType != ocispec.MediaTypeImageManifest {
		return nil, refuse(fmt.Errorf("%s: media type %q: only OCI image manifests (%s) are read", what, desc.MediaType, ocispec.MediaTypeImageManifest))
	}
	if desc.Size <= 0 {
		return nil, fmt.Errorf("%s: the registry gave no size for the manifest", what)
	}
	if desc.Size > maxBytes {
		return nil, refuse(fmt.Errorf("%s: the manifest's %d bytes are beyond the limit of %d", what, desc.Size, maxBytes))
	}
	rc, err := client.Manifests().Fetch(ctx, desc)
	if err != nil {
		return nil, explain(ctx, what+": fetching the manifest", err)
	}
	defer rc.Close()
	data, err := content.ReadAll(rc, desc)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the manifest: %w", what, err)
	}
	var manifest ocispec.Manifest
	if err := json.Unmarshal(data, &manifest); err != nil {
		return nil, refuse(fmt.Errorf("%s: the manifest: %w", what, err))
	}
	if manifest.MediaType != "" && manifest.MediaType != ocispec.MediaTypeImageManifest {
		return nil, refuse(fmt.Errorf("%s: the manifest says media type %q, the registry %q", what, manifest.MediaType, desc.MediaType))
	}
	return &manifest, nil
}

// contentLayer picks the manifest's one layer, if it is a gzip-compressed
// tarball within the limit.
func contentLayer(repo Repository, desc ocispec.Descriptor, manifest *ocispec.Manifest, maxBytes int64) (ocispec.Descriptor, error) {
	what := fmt.Sprintf("%s@%s", repo, desc.Digest)
	if len(manifest.Layers) != 1 {
		return ocispec.Descriptor{}, refuse(fmt.Errorf("%s: %d layers: an artifact has exactly one", what, len(manifest.Layers)))
	}
	layer := manifest.Layers[0]
	if !acceptedLayerMediaTypes[layer.MediaType] {
		return ocispec.Descriptor{}, refuse(fmt.Errorf("%s: layer media type %q: only %s and %s are read", what, layer.MediaType, fluxContentMediaType, ociLayerMediaType))
	}
	if layer.Size <= 0 {
		return ocispec.Descriptor{}, refuse(fmt.Errorf("%s: the layer has no size", what))
	}
	if layer.Size > maxBytes {
		return ocispec.Descriptor{}, refuse(fmt.Errorf("%s: the layer's %d bytes are beyond the limit of %d", what, layer.Size, maxBytes))
	}
	if err := layer.Digest.Validate(); err != nil {
		return ocispec.Descriptor{}, refuse(fmt.Errorf("%s: layer digest %q: %w", what, layer.Digest, err))
	}
	return layer, nil
}

func fetchLayer(ctx context.Context, client *remote.Repository, repo Repository, layer ocispec.Descriptor, limits artifact.Limits) (*artifact.Tree, error) {
	what := fmt.Sprintf("%s: layer %s", repo, layer.Digest)
	rc, err := client.Blobs().Fetch(ctx, layer)
	if err != nil {
		return nil, explain(ctx, what, err)
	}
	defer rc.Close()
	data, err := content.ReadAll(rc, layer)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	files, err := artifact.Extract(bytes.NewReader(data), limits)
	if err != nil {
		return nil, refuse(fmt.Errorf("%s: %w", what, err))
	}
	return files, nil
}

// digestOf is the digest the registry will know data by.
func digestOf(data []byte) digest.Digest {
	return digest.FromBytes(data)
}

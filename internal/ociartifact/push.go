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
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
)

// Metadata is what Push records of an artifact's origin, in the annotations
// flux push artifact writes.
type Metadata struct {
	// Source is where the files come from, such as a Git repository's URL.
	Source string
	// Revision is the source's revision, such as main@sha1:<commit>.
	Revision string
	// Created is when the artifact was made; zero for now.
	Created time.Time
	// Annotations are more annotations of the manifest, as flux push
	// artifact --annotations writes them. They may not be the three above.
	Annotations map[string]string
}

// annotations are the manifest's annotations: the three above always
// present as Flux writes them, even when empty, and the others given.
func (m Metadata) annotations() (map[string]string, error) {
	out := map[string]string{
		CreatedAnnotation:  m.Created.UTC().Format(time.RFC3339),
		SourceAnnotation:   m.Source,
		RevisionAnnotation: m.Revision,
	}
	for k, v := range m.Annotations {
		if _, ok := out[k]; ok {
			return nil, fmt.Errorf("annotation %s is written from the artifact's creation time, source or revision", k)
		}
		out[k] = v
	}
	return out, nil
}

// Push writes files to the repository at url as Flux writes an artifact: an
// OCI image manifest whose config has media type fluxConfigMediaType and
// whose one layer is the files as a gzip-compressed tarball of media type
// fluxContentMediaType, annotated with meta. The manifest is tagged with
// tag, unless tag is empty. Push returns the manifest's digest.
func Push(ctx context.Context, files *artifact.Tree, url, tag string, meta Metadata, opts Options) (string, error) {
	repo, err := ParseURL(url)
	if err != nil {
		return "", err
	}
	if tag != "" {
		if err := (Version{Tag: tag}).validate(); err != nil {
			return "", fmt.Errorf("%s: %w", repo, err)
		}
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now()
	}
	annotations, err := meta.annotations()
	if err != nil {
		return "", fmt.Errorf("%s: %w", repo, err)
	}
	client, err := opts.repository(repo)
	if err != nil {
		return "", err
	}
	layer, layerData, diffID, err := tarballLayer(files)
	if err != nil {
		return "", fmt.Errorf("%s: %w", repo, err)
	}
	config, configData, err := fluxConfig(meta.Created, diffID)
	if err != nil {
		return "", fmt.Errorf("%s: %w", repo, err)
	}
	manifest, manifestData, err := imageManifest(config, layer, annotations)
	if err != nil {
		return "", fmt.Errorf("%s: %w", repo, err)
	}
	if err := pushBlob(ctx, client, repo, layer, layerData); err != nil {
		return "", err
	}
	if err := pushBlob(ctx, client, repo, config, configData); err != nil {
		return "", err
	}
	if err := pushManifest(ctx, client, repo, manifest, manifestData, tag); err != nil {
		return "", err
	}
	return manifest.Digest.String(), nil
}

// tarballLayer writes the files as the layer, and gives the digest of the
// uncompressed tarball, which the config lists as the layer's diff ID.
func tarballLayer(files *artifact.Tree) (ocispec.Descriptor, []byte, digest.Digest, error) {
	var compressed bytes.Buffer
	if err := files.WriteTarGzip(&compressed); err != nil {
		return ocispec.Descriptor{}, nil, "", err
	}
	gz, err := gzip.NewReader(bytes.NewReader(compressed.Bytes()))
	if err != nil {
		return ocispec.Descriptor{}, nil, "", err
	}
	digester := digest.Canonical.Digester()
	if _, err := io.Copy(digester.Hash(), gz); err != nil {
		return ocispec.Descriptor{}, nil, "", err
	}
	data := compressed.Bytes()
	desc := ocispec.Descriptor{MediaType: fluxContentMediaType, Digest: digestOf(data), Size: int64(len(data))}
	return desc, data, digester.Digest(), nil
}

// fluxConfig is the config flux push artifact writes: an image config with
// no platform, the creation time, and the layer's diff ID.
func fluxConfig(created time.Time, diffID digest.Digest) (ocispec.Descriptor, []byte, error) {
	createdUTC := created.UTC().Truncate(time.Second)
	data, err := json.Marshal(ocispec.Image{
		Created: &createdUTC,
		RootFS:  ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{diffID}},
	})
	if err != nil {
		return ocispec.Descriptor{}, nil, fmt.Errorf("writing the config: %w", err)
	}
	return ocispec.Descriptor{MediaType: fluxConfigMediaType, Digest: digestOf(data), Size: int64(len(data))}, data, nil
}

func imageManifest(config, layer ocispec.Descriptor, annotations map[string]string) (ocispec.Descriptor, []byte, error) {
	data, err := json.Marshal(ocispec.Manifest{
		Versioned:   specs.Versioned{SchemaVersion: 2},
		MediaType:   ocispec.MediaTypeImageManifest,
		Config:      config,
		Layers:      []ocispec.Descriptor{layer},
		Annotations: annotations,
	})
	if err != nil {
		return ocispec.Descriptor{}, nil, fmt.Errorf("writing the manifest: %w", err)
	}
	return ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digestOf(data), Size: int64(len(data))}, data, nil
}

func pushBlob(ctx context.Context, client *remote.Repository, repo Repository, desc ocispec.Descriptor, data []byte) error {
	exists, err := client.Blobs().Exists(ctx, desc)
	if err != nil {
		return explain(ctx, fmt.Sprintf("%s: blob %s", repo, desc.Digest), err)
	}
	if exists {
		return nil
	}
	if err := client.Blobs().Push(ctx, desc, bytes.NewReader(data)); err != nil {
		return explain(ctx, fmt.Sprintf("%s: pushing blob %s", repo, desc.Digest), err)
	}
	return nil
}

func pushManifest(ctx context.Context, client *remote.Repository, repo Repository, desc ocispec.Descriptor, data []byte, tag string) error {
	if tag == "" {
		if err := client.Manifests().Push(ctx, desc, bytes.NewReader(data)); err != nil {
			return explain(ctx, fmt.Sprintf("%s: pushing manifest %s", repo, desc.Digest), err)
		}
		return nil
	}
	if err := client.Manifests().PushReference(ctx, desc, bytes.NewReader(data), tag); err != nil {
		return explain(ctx, fmt.Sprintf("%s: pushing manifest %s as tag %q", repo, desc.Digest, tag), err)
	}
	return nil
}

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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	gcrv1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// fluxTarball archives dir as Flux's tar package does: a "." entry first,
// directories without a trailing slash, owners and times zeroed.
func fluxTarball(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		header, err := tar.FileInfoHeader(fi, p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		header.Name = filepath.ToSlash(rel)
		header.Uid, header.Gid, header.Uname, header.Gname = 0, 0, "", ""
		if err := tw.WriteHeader(header); err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(tw.Close(), gz.Close()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPullReadsWhatFluxPushes writes an artifact with go-containerregistry
// the way flux push artifact does, and pulls it.
func TestPullReadsWhatFluxPushes(t *testing.T) {
	reg := newTestRegistry(t, nil)
	dir := t.TempDir()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	archive := fluxTarball(t, dir)
	opener := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(archive)), nil }
	layer, err := tarball.LayerFromOpener(opener, tarball.WithMediaType(fluxContentMediaType))
	if err != nil {
		t.Fatal(err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, fluxConfigMediaType)
	config, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	config.Created = gcrv1.Time{Time: created}
	if img, err = mutate.ConfigFile(img, config); err != nil {
		t.Fatal(err)
	}
	img = mutate.Annotations(img, map[string]string{
		"org.opencontainers.image.created":  created.Format(time.RFC3339),
		"org.opencontainers.image.source":   "src",
		"org.opencontainers.image.revision": "rev",
	}).(gcrv1.Image)
	if img, err = mutate.Append(img, mutate.Addendum{Layer: layer}); err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(reg.host+"/flux:v1", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatal(err)
	}
	want, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}

	pulled, err := Pull(context.Background(), reg.url("flux"), Version{Tag: "v1"}, reg.options(t), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Digest != want.String() {
		t.Errorf("pulled %s, Flux pushed %s", pulled.Digest, want)
	}
	if diff := cmp.Diff(files, contents(pulled.Files)); diff != "" {
		t.Errorf("files (-Flux pushed +pulled):\n%s", diff)
	}
}

// TestFluxReadsWhatPushWrites reads an artifact Push wrote the way flux
// pull artifact does, with go-containerregistry.
func TestFluxReadsWhatPushWrites(t *testing.T) {
	reg := newTestRegistry(t, nil)
	digest := push(t, files, reg.url("ours"), "v1", Metadata{Source: "src", Revision: "rev", Created: created}, reg.options(t))

	ref, err := name.ParseReference(reg.host+"/ours:v1", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(ref)
	if err != nil {
		t.Fatal(err)
	}
	got, err := img.Digest()
	if err != nil || got.String() != digest {
		t.Fatalf("digest %s (%v), pushed %s", got, err, digest)
	}
	config, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !config.Created.Equal(created) || len(config.RootFS.DiffIDs) != 1 {
		t.Errorf("config created %v, diff IDs %v; want %v and one", config.Created, config.RootFS.DiffIDs, created)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers (%v), want one", len(layers), err)
	}
	// Checks the diff ID the config lists against the layer's content.
	if err := checkDiffID(layers[0], config.RootFS.DiffIDs[0]); err != nil {
		t.Error(err)
	}
}

func checkDiffID(layer gcrv1.Layer, want gcrv1.Hash) error {
	rc, err := layer.Uncompressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	got, _, err := gcrv1.SHA256(rc)
	if err != nil {
		return err
	}
	if got != want {
		return errors.New("the config's diff ID is not the layer's: " + got.String() + " != " + want.String())
	}
	_, err = io.Copy(io.Discard, rc)
	return err
}

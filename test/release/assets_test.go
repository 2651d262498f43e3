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

package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// index is what an image tarball holds: the tag its index is named by, the
// index's digest, the platforms of its images and the index itself.
type index struct {
	tag, digest string
	platforms   []string
	images      v1.ImageIndex
}

// readIndex unpacks an image tarball and reads its OCI layout.
func readIndex(t *testing.T, tarball string) index {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, data := range readTar(t, f) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	named, err := top.IndexManifest()
	if err != nil || len(named.Manifests) != 1 {
		t.Fatalf("the image's index.json names %+v (%v), want one index", named, err)
	}
	out := index{tag: named.Manifests[0].Annotations["org.opencontainers.image.ref.name"],
		digest: named.Manifests[0].Digest.String()}
	idx, err := top.ImageIndex(named.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	out.images = idx
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Manifests {
		if d.Platform != nil {
			out.platforms = append(out.platforms, d.Platform.OS+"/"+d.Platform.Architecture)
		}
	}
	return out
}

// managerOf is /manager of the image for linux/arch in an image tarball.
func managerOf(t *testing.T, tarball, arch string) []byte {
	t.Helper()
	idx := readIndex(t, tarball).images
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Manifests {
		if d.Platform == nil || d.Platform.Architecture != arch {
			continue
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		layers, err := img.Layers()
		if err != nil || len(layers) != 1 {
			t.Fatalf("the image for %s has %d layers (%v), want one", arch, len(layers), err)
		}
		rc, err := layers[0].Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		return readTar(t, rc)["manager"]
	}
	t.Fatalf("the image has no linux/%s", arch)
	return nil
}

func readTarGz(t *testing.T, file string) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return readTar(t, zr)
}

// readTar is the regular files of a tarball by name.
func readTar(t *testing.T, r io.Reader) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		if files[hdr.Name], err = io.ReadAll(tr); err != nil {
			t.Fatal(err)
		}
	}
}

func writeExecutable(t *testing.T, path string, data []byte) {
	t.Helper()
	if len(data) == 0 {
		t.Fatalf("no binary for %s", filepath.Base(path))
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// checkVersion runs binary --version and expects the line want.
func checkVersion(t *testing.T, binary, want string) {
	t.Helper()
	out, err := exec.Command(binary, "--version").CombinedOutput()
	if got := strings.TrimSpace(string(out)); err != nil || got != want {
		t.Errorf("%s --version: %q (%v), want %q", filepath.Base(binary), got, err, want)
	}
}

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

package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// TestIndex writes an index of two platforms twice and reads it back as
// each tool does: the OCI layout's index (named by the tag, one image a
// platform), the docker manifest (this machine's image), and one file for
// equal inputs.
func TestIndex(t *testing.T) {
	dir := t.TempDir()
	var platforms platformList
	for _, arch := range []string{"amd64", "arm64"} {
		binary := filepath.Join(dir, "manager-"+arch)
		if err := os.WriteFile(binary, []byte("#!/bin/true "+arch+"\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := platforms.Set("linux/" + arch + "=" + binary); err != nil {
			t.Fatal(err)
		}
	}
	var files [][]byte
	for _, out := range []string{"a.tar", "b.tar"} {
		o := options{path: "/manager", tag: "example.com/op:v1", user: "65532:65532",
			out: filepath.Join(dir, out), platforms: platforms}
		if err := run(o); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(o.out)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, data)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two builds of the same binaries differ")
	}
	img, err := tarball.ImageFromPath(filepath.Join(dir, "a.tar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	local := runtime.GOARCH
	if local != "arm64" {
		local = "amd64" // the first, where the index has none for this machine
	}
	if cfg, err := img.ConfigFile(); err != nil || cfg.Architecture != local {
		t.Errorf("docker load reads the image of %+v (%v), want %s", cfg, err, local)
	}

	unpacked := filepath.Join(dir, "layout")
	untar(t, files[0], unpacked)
	top, err := layout.ImageIndexFromPath(unpacked)
	if err != nil {
		t.Fatal(err)
	}
	named, err := top.IndexManifest()
	if err != nil || len(named.Manifests) != 1 {
		t.Fatalf("index.json = %+v, %v; want the one index", named, err)
	}
	if a := named.Manifests[0].Annotations; a["org.opencontainers.image.ref.name"] != "v1" ||
		a["io.containerd.image.name"] != "example.com/op:v1" {
		t.Errorf("the index is named %v", a)
	}
	idx, err := top.ImageIndex(named.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 2 {
		t.Fatalf("the index holds %+v, %v; want two images", m, err)
	}
	for i, arch := range []string{"amd64", "arm64"} {
		if p := m.Manifests[i].Platform; p == nil || p.OS != "linux" || p.Architecture != arch {
			t.Errorf("image %d is for %+v, want linux/%s", i, p, arch)
		}
	}
}

func TestPlatformFlag(t *testing.T) {
	for v, ok := range map[string]bool{
		"linux/arm64=bin/m": true,
		"linux/arm64":       false,
		"darwin/arm64=m":    false,
		"linux/=m":          false,
		"linux/arm/v7=m":    false,
		"linux/amd64=":      false,
	} {
		var l platformList
		if err := l.Set(v); (err == nil) != ok {
			t.Errorf("-platform %q: %v, want ok %v", v, err, ok)
		}
	}
	var l platformList
	if l.Set("linux/amd64=a") != nil || l.Set("linux/amd64=b") == nil {
		t.Error("a platform given twice was taken")
	}
}

func untar(t *testing.T, data []byte, dir string) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		if hdr.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

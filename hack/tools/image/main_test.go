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
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func TestCheckNumericUser(t *testing.T) {
	for user, ok := range map[string]bool{
		"65532:65532": true,
		"1000:0":      true,
		"0:0":         false,
		"nonroot":     false,
		"65532":       false,
		"65532:":      false,
		"-1:0":        false,
		"1:2:3":       false,
		"01:1":        false,
		" 1:1":        false,
	} {
		if err := checkNumericUser(user); (err == nil) != ok {
			t.Errorf("checkNumericUser(%q) = %v, want ok %v", user, err, ok)
		}
	}
}

// TestRun writes an image twice and reads it back: the Dockerfile's layout
// (the binary as entrypoint, mode 0755, a numeric user), and one digest.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	binary := filepath.Join(dir, "manager")
	if err := os.WriteFile(binary, []byte("#!/bin/true\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	var digests []string
	for _, out := range []string{"a.tar", "b.tar"} {
		o := options{binary: binary, path: "/manager", tag: "example.com/op:v1", user: "65532:65532",
			out: filepath.Join(dir, out), arch: "amd64", args: stringList{"--leader-elect"}}
		if err := run(o); err != nil {
			t.Fatal(err)
		}
		img, err := tarball.ImageFromPath(o.out, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Config.User != "65532:65532" || !slices.Equal(cfg.Config.Entrypoint, []string{"/manager"}) ||
			!slices.Equal(cfg.Config.Cmd, []string{"--leader-elect"}) || cfg.OS != "linux" || cfg.Architecture != "amd64" {
			t.Errorf("config = %+v", cfg.Config)
		}
		layers, err := img.Layers()
		if err != nil || len(layers) != 1 {
			t.Fatalf("layers = %d, %v; want one", len(layers), err)
		}
		rc, err := layers[0].Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		hdr, err := tr.Next()
		if err != nil || hdr.Name != "manager" || hdr.Mode != 0o755 || hdr.Uid != 0 {
			t.Errorf("first entry = %+v, %v; want manager, mode 0755, owned by root", hdr, err)
		}
		if _, err := tr.Next(); err != io.EOF {
			t.Errorf("more than one entry in the layer: %v", err)
		}
		rc.Close()
		digest, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, digest.String())
	}
	if digests[0] != digests[1] {
		t.Errorf("two builds of one binary differ: %v", digests)
	}
}

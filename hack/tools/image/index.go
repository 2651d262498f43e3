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
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// platformBinary is one -platform: the binary of the image for linux/arch.
type platformBinary struct{ arch, binary string }

type platformList []platformBinary

func (l *platformList) String() string { return fmt.Sprint(*l) }

// Set reads linux/ARCH=BINARY.
func (l *platformList) Set(v string) error {
	platform, binary, ok := strings.Cut(v, "=")
	arch, linux := strings.CutPrefix(platform, "linux/")
	if !ok || !linux || arch == "" || strings.Contains(arch, "/") || binary == "" {
		return fmt.Errorf("%q: want linux/ARCH=BINARY", v)
	}
	if slices.ContainsFunc(*l, func(p platformBinary) bool { return p.arch == arch }) {
		return fmt.Errorf("linux/%s is given twice", arch)
	}
	*l = append(*l, platformBinary{arch, binary})
	return nil
}

// writeIndex writes an image index of one image a platform, as one tarball
// that each tool reads its way: an OCI image layout whose index.json names
// the index by the tag (`crane push --index` of the unpacked directory,
// `ctr images import`, kind load image-archive, and docker load since 25),
// and a manifest.json naming the image of this machine's architecture
// (older docker load). The digest printed is the index's, which a registry
// the layout is pushed to keeps.
func writeIndex(o options, ref name.Tag) error {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var local v1.Image
	for _, p := range o.platforms {
		img, err := newImage(o, p.binary, p.arch)
		if err != nil {
			return err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: p.arch}}})
		if local == nil || p.arch == runtime.GOARCH {
			local = img
		}
	}
	dir, err := os.MkdirTemp(filepath.Dir(o.out), ".image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref.TagStr(),
		"io.containerd.image.name":          containerdName(ref),
	})); err != nil {
		return err
	}
	if err := writeDockerManifest(dir, ref, local); err != nil {
		return err
	}
	tmp := o.out + ".tmp"
	if err := tarDir(dir, tmp); err != nil {
		return fmt.Errorf("writing %s: %w", o.out, err)
	}
	if err := os.Rename(tmp, o.out); err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s %s %s\n", o.out, ref.Name(), digest)
	return nil
}

// containerdName is the tag as containerd names images: in full, with
// docker.io for Docker Hub.
func containerdName(ref name.Tag) string {
	registry := ref.RegistryStr()
	if registry == name.DefaultRegistry {
		registry = "docker.io"
	}
	return registry + "/" + ref.RepositoryStr() + ":" + ref.TagStr()
}

// writeDockerManifest writes the manifest.json of `docker save`, naming the
// blobs of img in the layout.
func writeDockerManifest(dir string, ref name.Tag, img v1.Image) error {
	cfg, err := img.ConfigName()
	if err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	var paths []string
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return err
		}
		paths = append(paths, "blobs/"+d.Algorithm+"/"+d.Hex)
	}
	data, err := json.Marshal([]map[string]any{{
		"Config": "blobs/" + cfg.Algorithm + "/" + cfg.Hex, "RepoTags": []string{ref.String()}, "Layers": paths,
	}})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), data, 0o644)
}

// tarDir writes the files under dir as a tarball with no time or owner in
// it, so that equal inputs give an equal file.
func tarDir(dir, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if d.IsDir() {
			hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, hdr.Name+"/", 0o755
			return tw.WriteHeader(hdr)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(data))
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return f.Close()
}

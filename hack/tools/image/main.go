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

// Command image writes a container image holding one static binary as an
// image tarball (the `docker save` layout, which `docker load`, `ctr images
// import` and `kind load image-archive` read), without a container engine.
// With -platform it writes an image index of one such image a platform
// instead (see index.go).
// The image has the layout the Dockerfile's final stage gives: an empty base,
// the binary at -path as the entrypoint, a numeric non-root user. Equal inputs
// give an equal image digest: no timestamp depends on the build.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type options struct {
	binary string
	path   string
	tag    string
	user   string
	out    string
	arch   string
	args   stringList
	// platforms, when given, make an image index of one image a binary.
	platforms platformList
}

type stringList []string

func (l *stringList) String() string     { return fmt.Sprint(*l) }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	var o options
	flag.StringVar(&o.binary, "binary", "", "the static binary to put in the image (required)")
	flag.StringVar(&o.path, "path", "", "where the binary lies in the image; default /<name of -binary>")
	flag.StringVar(&o.tag, "tag", "", "the image's name and tag, e.g. applyset-operator:latest (required)")
	flag.StringVar(&o.user, "user", "65532:65532", "the numeric uid:gid the image runs as")
	flag.StringVar(&o.out, "out", "", "the tarball to write (required)")
	flag.StringVar(&o.arch, "arch", runtime.GOARCH, "the architecture the binary was built for")
	flag.Var(&o.args, "arg", "an argument after the entrypoint (repeat for more)")
	flag.Var(&o.platforms, "platform", "linux/ARCH=BINARY: an image of the index for that platform (repeat for more); "+
		"with it -binary and -arch are not used, and -out is an OCI image layout with an index, as a tarball")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if (o.binary == "") == (len(o.platforms) == 0) || o.tag == "" || o.out == "" {
		return errors.New("-tag, -out and either -binary or -platform are required")
	}
	switch {
	case o.path == "" && o.binary == "":
		return errors.New("-path is required with -platform")
	case o.path == "":
		o.path = "/" + path.Base(o.binary)
	}
	ref, err := name.NewTag(o.tag)
	if err != nil {
		return fmt.Errorf("-tag: %w", err)
	}
	if err := checkNumericUser(o.user); err != nil {
		return err
	}
	if len(o.platforms) > 0 {
		return writeIndex(o, ref)
	}
	img, err := newImage(o, o.binary, o.arch)
	if err != nil {
		return err
	}
	tmp := o.out + ".tmp"
	if err := tarball.WriteToFile(tmp, ref, img); err != nil {
		return fmt.Errorf("writing %s: %w", o.out, err)
	}
	if err := os.Rename(tmp, o.out); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s %s %s\n", o.out, ref.Name(), digest)
	return nil
}

// newImage is the image of one binary built for arch: the Dockerfile's
// final stage.
func newImage(o options, binary, arch string) (v1.Image, error) {
	layer, err := binaryLayer(binary, o.path)
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", arch
	cfg.Config.Entrypoint = []string{o.path}
	cfg.Config.Cmd = o.args
	cfg.Config.User = o.user
	cfg.Config.WorkingDir = "/"
	return mutate.ConfigFile(img, cfg)
}

// checkNumericUser refuses a user name: Kubernetes can enforce runAsNonRoot
// only on a numeric uid.
func checkNumericUser(user string) error {
	var uid, gid uint32
	if n, err := fmt.Sscanf(user, "%d:%d", &uid, &gid); err != nil || n != 2 || fmt.Sprintf("%d:%d", uid, gid) != user {
		return fmt.Errorf("-user %q: want a numeric uid:gid", user)
	}
	if uid == 0 {
		return fmt.Errorf("-user %q: want a non-root uid", user)
	}
	return nil
}

// binaryLayer is an uncompressed tar of one executable, as a gzip layer.
func binaryLayer(binary, inImage string) (v1.Layer, error) {
	f, err := os.Open(binary)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     path.Clean(inImage)[1:],
		Mode:     0o755,
		Size:     info.Size(),
		Format:   tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := io.Copy(tw, f); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

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

// Command build-installer writes the release's install artifacts, as `make
// build-installer` runs it: OUT/install.yaml, config/default with the
// manager's image, and OUT/chart, a Helm chart rendered from the same
// kustomize output (internal/release).
//
// Usage: build-installer -image IMAGE -version vX.Y.Z -out DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/release"
	"github.com/applyset-operator/applyset-operator/internal/version"
)

func main() {
	image := flag.String("image", release.ImageRepository+":"+version.String(), "The manager's image the install runs.")
	v := flag.String("version", version.String(), "The release's version, vX.Y.Z: the chart's version is the same without the v.")
	out := flag.String("out", "dist", "Where to write install.yaml and chart/.")
	flag.Parse()
	if err := run(*image, *v, *out); err != nil {
		fmt.Fprintf(os.Stderr, "build-installer: %v\n", err)
		os.Exit(1)
	}
}

func run(image, v, out string) error {
	if err := version.Valid(v); err != nil {
		return err
	}
	root, err := controlplane.Root()
	if err != nil {
		return err
	}
	install, err := release.Installer(root, image)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "install.yaml"), install, 0o644); err != nil {
		return err
	}
	chart := filepath.Join(out, "chart")
	if err := release.Chart(root, chart, release.ChartOptions{Image: image, Version: strings.TrimPrefix(v, "v")}); err != nil {
		return err
	}
	fmt.Printf("%s\n%s\n", filepath.Join(out, "install.yaml"), chart)
	return nil
}

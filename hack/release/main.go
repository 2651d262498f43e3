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

// Command release finishes the assets of a release that `make release`
// built into a directory: it packages the chart build-installer wrote,
// renders the krew index entry from .krew.yaml as krew-release-bot would
// (the template stays as it is), and writes SHA256SUMS of every asset. With
// -check it only checks the version, before anything is built.
//
// Usage: release -version vX.Y.Z -dist DIR [-check]
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

// krewManifest is the rendered krew index entry among the assets.
const krewManifest = "kubectl-applyset.krew.yaml"

func main() {
	v := flag.String("version", "", "The release's version, vX.Y.Z (required).")
	dist := flag.String("dist", "dist", "The directory of the release's assets.")
	check := flag.Bool("check", false, "Only check the version.")
	flag.Parse()
	err := version.Valid(*v)
	if err == nil && !*check {
		err = finish(*v, *dist)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

func finish(v, dist string) error {
	root, err := controlplane.Root()
	if err != nil {
		return err
	}
	chartDir := filepath.Join(dist, "chart")
	chart, err := release.PackageChart(chartDir, dist, strings.TrimPrefix(v, "v"))
	if err != nil {
		return fmt.Errorf("packaging the chart: %w", err)
	}
	if err := os.RemoveAll(chartDir); err != nil {
		return err
	}
	template, err := os.ReadFile(filepath.Join(root, ".krew.yaml"))
	if err != nil {
		return err
	}
	krew, err := release.RenderKrew(template, v, dist)
	if err != nil {
		return fmt.Errorf("rendering .krew.yaml: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dist, krewManifest), krew, 0o644); err != nil {
		return err
	}
	if err := release.WriteSums(dist); err != nil {
		return err
	}
	fmt.Printf("%s\n%s\n%s\n", chart, filepath.Join(dist, krewManifest), filepath.Join(dist, release.SumsFile))
	return nil
}

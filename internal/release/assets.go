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
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// SumsFile lists the sha256 of every other asset of a release.
const SumsFile = "SHA256SUMS"

// ImageTarball is the release's image index, as make release writes it
// (RELEASE_IMAGE in the Makefile).
const ImageTarball = "applyset-operator-image.tar"

// PackageChart writes the chart of dir as `helm package` does: a gzipped
// tarball of its files under the chart's name, CHART-VERSION.tgz in out. It
// returns the file's path. Nothing in it depends on the time of the build.
func PackageChart(dir, out, version string) (string, error) {
	file := filepath.Join(out, ChartName+"-"+version+".tgz")
	f, err := os.Create(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: ChartName + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)),
			ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		return "", err
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return file, f.Close()
}

// WriteSums writes SHA256SUMS in dist: one line a file beside it, as
// `sha256sum` writes them and `sha256sum -c` checks them, sorted by name.
func WriteSums(dist string) error {
	entries, err := os.ReadDir(dist)
	if err != nil {
		return err
	}
	var lines []string
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == SumsFile {
			continue
		}
		sum, err := FileSHA256(filepath.Join(dist, e.Name()))
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s  %s\n", sum, e.Name()))
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	return os.WriteFile(filepath.Join(dist, SumsFile), []byte(strings.Join(lines, "")), 0o644)
}

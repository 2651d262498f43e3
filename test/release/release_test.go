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

// Package release checks the assets `make release` wrote (make
// test-release makes them in a clean clone and runs this): that every one
// names the same version, that the install pins the image the release
// built, and that SHA256SUMS matches them. Without RELEASE_DIST it is
// skipped.
package release

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/internal/release"
)

// assets is a release's directory and the version it was made for.
type assets struct {
	dist, version string
}

func load(t *testing.T) assets {
	t.Helper()
	dist, v := os.Getenv("RELEASE_DIST"), os.Getenv("RELEASE_VERSION")
	if dist == "" || v == "" {
		t.Skip("RELEASE_DIST and RELEASE_VERSION name a release's assets: make test-release")
	}
	return assets{dist, v}
}

func (a assets) file(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(a.dist, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSums: SHA256SUMS names every other asset, once, with its digest.
func TestSums(t *testing.T) {
	a := load(t)
	entries, err := os.ReadDir(a.dist)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			t.Errorf("%s is not a file: a release's assets are files", e.Name())
		} else if e.Name() != release.SumsFile {
			files = append(files, e.Name())
		}
	}
	var listed []string
	scanner := bufio.NewScanner(bytes.NewReader(a.file(t, release.SumsFile)))
	for scanner.Scan() {
		sum, name, ok := strings.Cut(scanner.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: %q is not a sha256sum line", scanner.Text())
		}
		listed = append(listed, name)
		if got, err := release.FileSHA256(filepath.Join(a.dist, name)); err != nil || got != sum {
			t.Errorf("SHA256SUMS says %s of %s, which is %s (%v)", sum, name, got, err)
		}
	}
	if !slices.Equal(listed, files) {
		t.Errorf("SHA256SUMS lists %v, the release has %v", listed, files)
	}
}

// TestInstallRunsTheReleasedImage: install.yaml, the chart and the image
// tarball name one version, and the install and the chart pin the digest of
// the index in the tarball.
func TestInstallRunsTheReleasedImage(t *testing.T) {
	a := load(t)
	index := readIndex(t, filepath.Join(a.dist, release.ImageTarball))
	if index.tag != a.version {
		t.Errorf("the image is tagged %q, want %s", index.tag, a.version)
	}
	if want := []string{"linux/amd64", "linux/arm64"}; !slices.Equal(index.platforms, want) {
		t.Errorf("the image index holds %v, want %v", index.platforms, want)
	}
	want := release.ImageRepository + ":" + a.version + "@" + index.digest
	var images []string
	for _, doc := range strings.Split(string(a.file(t, "install.yaml")), "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatal(err)
		}
		containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			images = append(images, c.(map[string]any)["image"].(string))
		}
	}
	if !slices.Equal(images, []string{want}) {
		t.Errorf("install.yaml runs %v, want %s", images, want)
	}

	chart := readTarGz(t, filepath.Join(a.dist, release.ChartName+"-"+strings.TrimPrefix(a.version, "v")+".tgz"))
	var meta struct{ Name, Version, AppVersion string }
	if err := yaml.Unmarshal(chart[release.ChartName+"/Chart.yaml"], &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Name != release.ChartName || "v"+meta.Version != a.version || meta.AppVersion != a.version {
		t.Errorf("Chart.yaml: %+v, want version %s and appVersion %s", meta, strings.TrimPrefix(a.version, "v"), a.version)
	}
	var values struct {
		Manager struct {
			Image struct{ Repository, Tag, Digest string }
		}
	}
	if err := yaml.Unmarshal(chart[release.ChartName+"/values.yaml"], &values); err != nil {
		t.Fatal(err)
	}
	if got := values.Manager.Image; got.Repository != release.ImageRepository || got.Tag != a.version || got.Digest != index.digest {
		t.Errorf("the chart's image is %+v, want %s:%s@%s", got, release.ImageRepository, a.version, index.digest)
	}
}

// TestBinariesNameTheVersion: the manager in the image and the plugin in
// its archive, for this machine, print the release's version.
func TestBinariesNameTheVersion(t *testing.T) {
	a := load(t)
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("the release has no binary for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	dir := t.TempDir()
	if runtime.GOOS == "linux" {
		manager := filepath.Join(dir, "manager")
		writeExecutable(t, manager, managerOf(t, filepath.Join(a.dist, "applyset-operator-image.tar"), runtime.GOARCH))
		checkVersion(t, manager, "applyset-operator "+a.version)
	}
	archive := readTarGz(t, filepath.Join(a.dist, "kubectl-applyset_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz"))
	plugin := filepath.Join(dir, "kubectl-applyset")
	writeExecutable(t, plugin, archive["kubectl-applyset"])
	checkVersion(t, plugin, "kubectl-applyset "+a.version)
	if len(archive["LICENSE"]) == 0 {
		t.Error("the plugin's archive has no LICENSE")
	}
}

// TestKrewManifest: the rendered entry is the template's, at the
// release's version, each URL an asset of the release with its digest.
func TestKrewManifest(t *testing.T) {
	a := load(t)
	var plugin struct {
		Spec struct {
			Version   string
			Platforms []struct {
				URI    string
				SHA256 string `json:"sha256"`
			}
		}
	}
	if err := yaml.Unmarshal(a.file(t, "kubectl-applyset.krew.yaml"), &plugin); err != nil {
		t.Fatal(err)
	}
	if plugin.Spec.Version != a.version || len(plugin.Spec.Platforms) == 0 {
		t.Errorf("the krew manifest is of %q with %d platforms", plugin.Spec.Version, len(plugin.Spec.Platforms))
	}
	for _, p := range plugin.Spec.Platforms {
		name := filepath.Base(p.URI)
		if !strings.Contains(p.URI, "/releases/download/"+a.version+"/") {
			t.Errorf("%s is not an asset of %s", p.URI, a.version)
		}
		if sum, err := release.FileSHA256(filepath.Join(a.dist, name)); err != nil || sum != p.SHA256 {
			t.Errorf("%s: the manifest says sha256 %s, the asset's is %s (%v)", name, p.SHA256, sum, err)
		}
	}
}

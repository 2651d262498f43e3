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
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

// releaseTag is the tag the manifest is rendered for, as a release would be.
const releaseTag = "v0.1.0"

// krewPlugin is the part of krew's Plugin manifest (index.krew.dev) that
// installing the plugin depends on.
type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		ShortDescription string `json:"shortDescription"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			SHA256 string `json:"sha256"`
			Bin    string `json:"bin"`
		} `json:"platforms"`
	} `json:"spec"`
}

// TestKrewManifestMatchesPluginArchives renders .krew.yaml as the krew
// release bot does and checks it against `make plugin-archives`: one entry
// per platform the target builds, each URL naming that platform's archive
// at the release's tag, and the archive holding the binary the entry names.
// The archive of this machine's platform is built and opened; the others
// are named by the Makefile, not built (a cross build takes minutes).
func TestKrewManifestMatchesPluginArchives(t *testing.T) {
	root, err := controlplane.Root()
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	archives := strings.Fields(makeOutput(t, root, "--eval", "print-plugin-archives: ; @echo $(PLUGIN_ARCHIVES)",
		"print-plugin-archives", "PLUGIN_DIST="+dist))
	if len(archives) == 0 {
		t.Fatal("make names no plugin archives")
	}
	host := runtime.GOOS + "/" + runtime.GOARCH
	hostArchive := filepath.Join(dist, "kubectl-applyset_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz")
	if slices.Contains(archives, hostArchive) {
		makeOutput(t, root, "plugin-archives", "PLUGIN_PLATFORMS="+host, "PLUGIN_DIST="+dist)
	} else {
		t.Logf("make plugin-archives builds nothing for %s: only the names are checked", host)
	}

	plugin := renderKrewManifest(t, filepath.Join(root, ".krew.yaml"), dist)
	if plugin.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || plugin.Kind != "Plugin" {
		t.Errorf("not a krew Plugin: %s %s", plugin.APIVersion, plugin.Kind)
	}
	if plugin.Metadata.Name != "applyset" || plugin.Spec.Version != releaseTag || plugin.Spec.ShortDescription == "" {
		t.Errorf("name %q, version %q, shortDescription %q: want applyset, %s and a description",
			plugin.Metadata.Name, plugin.Spec.Version, plugin.Spec.ShortDescription, releaseTag)
	}

	var named []string
	for _, p := range plugin.Spec.Platforms {
		goos, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		want := "kubectl-applyset_" + goos + "_" + arch + ".tar.gz"
		if len(p.Selector.MatchLabels) != 2 || path.Base(p.URI) != want {
			t.Errorf("the entry for %v downloads %s, want .../%s", p.Selector.MatchLabels, p.URI, want)
		}
		if !strings.Contains(p.URI, "/releases/download/"+releaseTag+"/") {
			t.Errorf("%s is not an asset of the release %s", p.URI, releaseTag)
		}
		if p.Bin != "kubectl-"+plugin.Metadata.Name {
			t.Errorf("the entry for %s/%s runs %q, want kubectl-%s", goos, arch, p.Bin, plugin.Metadata.Name)
		}
		archive := filepath.Join(dist, want)
		named = append(named, archive)
		if archive == hostArchive {
			checkArchive(t, root, archive, p.Bin, p.SHA256)
		}
	}
	slices.Sort(named)
	slices.Sort(archives)
	if !slices.Equal(named, archives) {
		t.Errorf(".krew.yaml names the archives\n  %v\nmake plugin-archives builds\n  %v", named, archives)
	}
}

// makeOutput runs make in root and returns its standard output.
func makeOutput(t *testing.T, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-s", "--no-print-directory"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// renderKrewManifest renders the template as krew-release-bot does: the
// values carry TagName, and addURIAndSha renders its URL with the tag and
// adds the digest of the asset, which here is the archive of that name in
// dist (empty when it was not built).
func renderKrewManifest(t *testing.T, file, dist string) krewPlugin {
	t.Helper()
	values := struct{ TagName string }{releaseTag}
	funcs := template.FuncMap{"addURIAndSha": func(url, tag string) (string, error) {
		var rendered strings.Builder
		tmpl, err := template.New("url").Parse(url)
		if err != nil {
			return "", err
		}
		if err := tmpl.Execute(&rendered, struct{ TagName string }{tag}); err != nil {
			return "", err
		}
		digest := ""
		if data, err := os.ReadFile(filepath.Join(dist, path.Base(rendered.String()))); err == nil {
			sum := sha256.Sum256(data)
			digest = hex.EncodeToString(sum[:])
		}
		return fmt.Sprintf("uri: %s\n    sha256: %q", rendered.String(), digest), nil
	}}
	tmpl, err := template.New(filepath.Base(file)).Funcs(funcs).ParseFiles(file)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, values); err != nil {
		t.Fatal(err)
	}
	var plugin krewPlugin
	if err := yaml.Unmarshal(out.Bytes(), &plugin); err != nil {
		t.Fatalf("the rendered manifest is not YAML: %v\n%s", err, out.String())
	}
	return plugin
}

// checkArchive opens an archive make built and checks that krew can install
// it as the manifest says: its digest, the binary it names (executable,
// running here), and the license beside it.
func checkArchive(t *testing.T, root, archive, bin, digest string) {
	t.Helper()
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != digest {
		t.Errorf("%s: the manifest's sha256 is not the archive's", archive)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	modes := map[string]int64{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name], modes[h.Name] = content, h.Mode
	}
	if len(files) != 2 || files[bin] == nil || files["LICENSE"] == nil {
		t.Fatalf("%s holds %v, want %s and LICENSE", archive, slices.Sorted(maps.Keys(files)), bin)
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(files["LICENSE"], license) {
		t.Errorf("%s: LICENSE is not the repository's", archive)
	}
	if modes[bin]&0o111 == 0 {
		t.Errorf("%s: %s is not executable (mode %o)", archive, bin, modes[bin])
	}
	binary := filepath.Join(t.TempDir(), bin)
	if err := os.WriteFile(binary, files[bin], 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binary, "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "verify") {
		t.Errorf("%s --help from %s: %v\n%s", bin, archive, err, out)
	}
}

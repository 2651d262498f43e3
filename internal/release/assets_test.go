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
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderKrew(t *testing.T) {
	dist := t.TempDir()
	if err := os.WriteFile(filepath.Join(dist, "p_linux_amd64.tar.gz"), []byte("archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl := "version: \"{{ .TagName }}\"\n  - {{addURIAndSha \"https://x/download/{{ .TagName }}/p_linux_amd64.tar.gz\" .TagName }}\n"
	got, err := RenderKrew([]byte(tmpl), "v1.2.3", dist)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := FileSHA256(filepath.Join(dist, "p_linux_amd64.tar.gz"))
	want := "version: \"v1.2.3\"\n  - uri: https://x/download/v1.2.3/p_linux_amd64.tar.gz\n    sha256: \"" + sum + "\"\n"
	if string(got) != want {
		t.Errorf("rendered\n%s\nwant\n%s", got, want)
	}
	if _, err := RenderKrew([]byte(strings.ReplaceAll(tmpl, "amd64", "arm64")), "v1.2.3", dist); err == nil {
		t.Error("an entry whose asset is missing was rendered")
	}
}

func TestPackageChartAndSums(t *testing.T) {
	chart, dist := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(chart, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"Chart.yaml": "name: x\n", "templates/a.yaml": "a: 1\n"} {
		if err := os.WriteFile(filepath.Join(chart, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var packages [][]byte
	for range 2 {
		file, err := PackageChart(chart, dist, "1.2.3")
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		packages = append(packages, data)
	}
	if !bytes.Equal(packages[0], packages[1]) {
		t.Error("two packages of one chart differ")
	}
	if err := os.WriteFile(filepath.Join(dist, "install.yaml"), []byte("kind: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteSums(dist); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(dist, SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "  "+ChartName+"-1.2.3.tgz") || !strings.HasSuffix(lines[1], "  install.yaml") {
		t.Errorf("SHA256SUMS:\n%s", sums)
	}
}

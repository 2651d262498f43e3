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

package artifact

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"base/kustomization.yaml": "resources: [cm.yaml]\n",
		"base/cm.yaml":            "kind: ConfigMap\n",
		"shared/labels.yaml":      "labels: {}\n",
		".git/HEAD":               "ref: refs/heads/main\n",
		"sub/.git/config":         "[core]\n",
	})
	if err := os.Symlink("../shared/labels.yaml", filepath.Join(dir, "base", "labels.yaml")); err != nil {
		t.Fatal(err)
	}
	tree, err := ReadDir(dir, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"base/cm.yaml", "base/kustomization.yaml", "base/labels.yaml", "shared/labels.yaml"}
	if got := tree.Paths(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("paths %v, want %v", got, want)
	}
	if data, _ := tree.File("base/labels.yaml"); string(data) != "labels: {}\n" {
		t.Errorf("the link was read as %q", data)
	}
}

func TestReadDirRefuses(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.yaml": "kind: Secret\n"})
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string)
		want    string
	}{
		{name: "a link leaving the directory", want: `"escape.yaml": a symbolic link that leaves the directory`,
			prepare: func(t *testing.T, dir string) {
				symlink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "escape.yaml"))
			}},
		{name: "a relative link leaving the directory", want: `"a/up.yaml": a symbolic link that leaves the directory`,
			prepare: func(t *testing.T, dir string) {
				writeFiles(t, dir, map[string]string{"a/ok.yaml": "x: 1\n"})
				rel, err := filepath.Rel(filepath.Join(dir, "a"), filepath.Join(outside, "secret.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				symlink(t, rel, filepath.Join(dir, "a", "up.yaml"))
			}},
		{name: "a link to a directory", want: `"loop": a symbolic link to a directory`,
			prepare: func(t *testing.T, dir string) { symlink(t, ".", filepath.Join(dir, "loop")) }},
		{name: "a dangling link", want: `"gone.yaml": a symbolic link that leads nowhere`,
			prepare: func(t *testing.T, dir string) { symlink(t, "nothing.yaml", filepath.Join(dir, "gone.yaml")) }},
		{name: "a FIFO", want: `"pipe": only regular files, directories and links to files`,
			prepare: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
					t.Skip("no FIFOs here:", err)
				}
			}},
		{name: "more bytes than the limit", want: "larger than the limit",
			prepare: func(t *testing.T, dir string) {
				writeFiles(t, dir, map[string]string{"big.yaml": strings.Repeat("x", int(testLimits.MaxBytes)+1)})
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "set")
			writeFiles(t, dir, map[string]string{"cm.yaml": "kind: ConfigMap\n"})
			tt.prepare(t, dir)
			_, err := ReadDir(dir, testLimits)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// The same directory archives to the same bytes, whatever the files' times
// and the order the file system lists them in.
func TestReadDirArchivesTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"b/two.yaml": "two: 2\n", "a/one.yaml": "one: 1\n", "z.yaml": "z: 26\n"})
	archive := func() []byte {
		t.Helper()
		tree, err := ReadDir(dir, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := tree.WriteTarGzip(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	first := archive()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "z.yaml"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "a", "one.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, archive()) {
		t.Error("the same directory archived to other bytes")
	}
}

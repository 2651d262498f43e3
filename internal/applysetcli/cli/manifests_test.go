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

package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadManifests(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cm := func(name string) string { return "{apiVersion: v1, kind: ConfigMap, metadata: {name: " + name + "}}\n" }
	write("b.yaml", cm("b"))
	write("a.yml", cm("a")+"---\n"+cm("a2"))
	write("notes.txt", "not a manifest")
	write("sub/c.json", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}`)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(strings.Repeat(" ", 4096) + cm("big")))
	_ = zw.Close()

	tests := []struct {
		name      string
		paths     []string
		recursive bool
		stdin     string
		limit     int64
		want      []string
		wantErr   string
	}{
		{name: "a directory, in lexical order, manifests only", paths: []string{dir}, want: []string{"a", "a2", "b"}},
		{name: "a directory with -R", paths: []string{dir}, recursive: true, want: []string{"a", "a2", "b", "c"}},
		{name: "a file and standard input", paths: []string{filepath.Join(dir, "b.yaml"), "-"}, stdin: cm("in"), want: []string{"b", "in"}},
		{name: "gzip on standard input", paths: []string{"-"}, stdin: gz.String(), want: []string{"big"}},
		{name: "the limit counts decompressed bytes", paths: []string{"-"}, stdin: gz.String(), limit: 1024, wantErr: "more than the limit of 1Ki"},
		{name: "the limit counts every file", paths: []string{dir}, recursive: true, limit: 100, wantErr: "more than the limit"},
		{name: "nothing named", wantErr: "no manifests"},
		{name: "a missing file", paths: []string{filepath.Join(dir, "missing.yaml")}, wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := tt.limit
			if limit == 0 {
				limit = DefaultMaxInput
			}
			inputs, err := readManifests(tt.paths, tt.recursive, strings.NewReader(tt.stdin), limit)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an error saying %q, got %v", tt.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, in := range inputs {
				names = append(names, in.Object.GetName())
			}
			if strings.Join(names, ",") != strings.Join(tt.want, ",") {
				t.Errorf("read %v, want %v", names, tt.want)
			}
		})
	}
}

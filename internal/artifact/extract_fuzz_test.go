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
	"archive/tar"
	"bytes"
	"fmt"
	"testing"
)

func FuzzExtract(f *testing.F) {
	f.Add(tarball(f, dir("."), file("a.yaml", "a: 1"), file("b/c.yaml", "c")), int64(4096))
	f.Add(tarball(f, file("../x", "x")), int64(4096))
	f.Add(tarball(f, special("l", tar.TypeSymlink, "/etc")), int64(4096))
	f.Add(tarball(f, file("big", string(make([]byte, 5000)))), int64(2048))
	f.Add([]byte("not gzip"), int64(10))
	f.Fuzz(func(t *testing.T, data []byte, maxBytes int64) {
		if maxBytes <= 0 || maxBytes > 1<<20 {
			maxBytes = 1 << 16
		}
		limits := Limits{MaxBytes: maxBytes, MaxFiles: 64, MaxPathLength: 128}
		tree, err := Extract(bytes.NewReader(data), limits)
		if err != nil {
			return
		}
		if tree.Size() > maxBytes {
			t.Fatalf("%d bytes extracted past the limit of %d", tree.Size(), maxBytes)
		}
		if tree.Len() > limits.MaxFiles {
			t.Fatalf("%d files extracted past the limit of %d", tree.Len(), limits.MaxFiles)
		}
		var sum int64
		for _, p := range tree.Paths() {
			if clean, err := cleanPath(p); err != nil || clean != p {
				t.Fatalf("path %q is not clean: %q, %v", p, clean, err)
			}
			content, _ := tree.File(p)
			sum += int64(len(content))
		}
		if sum != tree.Size() {
			t.Fatalf("files sum to %d, Size says %d", sum, tree.Size())
		}
	})
}

func BenchmarkExtract(b *testing.B) {
	entries := make([]entry, 0, 200)
	for i := range 200 {
		entries = append(entries, file(fmt.Sprintf("dir%d/file%d.yaml", i%10, i), string(bytes.Repeat([]byte("key: value\n"), 100))))
	}
	data := tarball(b, entries...)
	limits := Limits{MaxBytes: 1 << 22, MaxFiles: 1000, MaxPathLength: 256}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Extract(bytes.NewReader(data), limits); err != nil {
			b.Fatal(err)
		}
	}
}

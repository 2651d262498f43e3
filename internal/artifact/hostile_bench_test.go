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
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkExtractHostile reports what extracting hostile tarballs costs
// under the operator's default bound (16 MiB): the memory allocated per
// refusal stays near the bound, whatever the tarball claims to hold: an
// entry larger than the bound is refused at its header, entries that add up
// past it when the bound is reached, too many entries at the count.
func BenchmarkExtractHostile(b *testing.B) {
	limits := Limits{MaxBytes: 16 << 20, MaxFiles: 10000, MaxPathLength: 256}
	cases := []struct {
		name string
		data []byte
	}{
		{"gzip bomb of 1 GiB in one entry", bomb(b, 1, 1<<30)},
		{"64 entries of 1 MiB of zeros, 4 times the bound", bomb(b, 64, 1<<20)},
		{"100,000 empty entries", manyEntries(b, 100000)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Extract(bytes.NewReader(c.data), limits); err == nil {
					b.Fatal("a hostile tarball was extracted")
				}
			}
			b.ReportMetric(float64(len(c.data)), "compressed-bytes")
		})
	}
}

// bomb is a gzip tarball of n entries of size zeros each.
func bomb(b *testing.B, n int, size int64) []byte {
	b.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	zeros := make([]byte, 1<<20)
	for i := range n {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("bomb%d", i), Size: size, Mode: 0o644}); err != nil {
			b.Fatal(err)
		}
		for left := size; left > 0; left -= int64(len(zeros)) {
			if _, err := tw.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// manyEntries is a gzip tarball of n empty files, more than MaxFiles.
func manyEntries(b *testing.B, n int) []byte {
	b.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for i := range n {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "f" + strings.Repeat("x", i%50) + fmt.Sprint(i), Mode: 0o644}); err != nil {
			b.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

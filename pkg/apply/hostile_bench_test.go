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

package apply

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// BenchmarkRejectHostileInput measures the time and memory it takes to
// refuse each kind of hostile source (run with -benchmem) within the
// default limits of a set (5,000 objects, 200 nodes each): the bounds the
// README states.
func BenchmarkRejectHostileInput(b *testing.B) {
	limits := DecodeLimits{Objects: 5000, Nodes: 5000 * 200}
	var docs strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&docs, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c%d}}\n---\n", i)
	}
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	_, _ = zw.Write(bytes.Repeat([]byte(" "), 64<<20))
	_ = zw.Close()
	cases := []struct {
		name string
		data []byte
		gzip bool
	}{
		{name: "alias-bomb", data: []byte(testenv.AliasBomb)},
		{name: "nesting-20000", data: []byte("data: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n")},
		{name: "invalid-utf8", data: []byte("data: {k: \xff\xfe}\n")},
		{name: "10000-documents", data: []byte(docs.String())},
		{name: "gzip-bomb-64MiB", data: bomb.Bytes(), gzip: true},
		{name: "16MiB-of-tiny-maps", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tiny}\ndata:\n  k:\n" +
			strings.Repeat("  - {}\n", (16<<20)/7))},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if c.gzip {
					if _, err := Inflate(c.data, 16<<20); err == nil {
						b.Fatal("the gzip bomb was inflated")
					}
					continue
				}
				if _, _, err := DecodeAtMost("src", c.data, limits); err == nil {
					b.Fatal("the hostile input was decoded")
				}
			}
		})
	}
}

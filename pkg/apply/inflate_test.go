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
	"errors"
	"strings"
	"testing"
)

func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestInflate(t *testing.T) {
	yaml := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	// A bomb: 64 MiB of zeros compress to about 64 KiB.
	bomb := gzipped(t, make([]byte, 64<<20))
	tests := []struct {
		name    string
		data    []byte
		limit   int64
		want    []byte
		wantErr string
	}{
		{name: "plain YAML passes through", data: yaml, limit: 1 << 20, want: yaml},
		{name: "gzip is decompressed", data: gzipped(t, yaml), limit: 1 << 20, want: yaml},
		{name: "two gzip streams back to back read as one", data: append(gzipped(t, yaml[:10]), gzipped(t, yaml[10:])...),
			limit: 1 << 20, want: yaml},
		{name: "a value exactly at the limit fits", data: gzipped(t, yaml), limit: int64(len(yaml)), want: yaml},
		{name: "plain input over the limit", data: yaml, limit: 10, wantErr: "more than the limit of 10, decompressed"},
		{name: "a gzip bomb stops at the limit", data: bomb, limit: 16 << 20, wantErr: "more than the limit of 16Mi, decompressed"},
		{name: "a broken gzip stream", data: append([]byte{0x1f, 0x8b}, "not gzip"...), limit: 1 << 20, wantErr: "reading gzip"},
		{name: "a truncated gzip stream", data: gzipped(t, yaml)[:20], limit: 1 << 20, wantErr: "reading gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Inflate(tt.data, tt.limit)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Inflate error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("Inflate = %q, want %q", got, tt.want)
			}
		})
	}
	var tooLarge *TooLargeError
	if _, err := Inflate(bomb, 1<<20); !errors.As(err, &tooLarge) || tooLarge.Limit != 1<<20 {
		t.Errorf("a bomb's error = %v, want a TooLargeError naming the limit", err)
	}
}

// FuzzInflate checks that Inflate never panics and never returns more than
// the limit, whatever the bytes.
func FuzzInflate(f *testing.F) {
	f.Add(gzipped(f, []byte("apiVersion: v1\nkind: ConfigMap\n")), int64(100))
	f.Add(gzipped(f, make([]byte, 4096)), int64(1000))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, int64(10))
	f.Fuzz(func(t *testing.T, data []byte, limit int64) {
		if limit < 0 || limit > 1<<20 {
			return
		}
		out, err := Inflate(data, limit)
		if err == nil && int64(len(out)) > limit {
			t.Fatalf("Inflate returned %d bytes over a limit of %d", len(out), limit)
		}
	})
}

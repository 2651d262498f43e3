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
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

var testLimits = Limits{MaxBytes: 1 << 20, MaxFiles: 100, MaxPathLength: 256}

type entry struct {
	hdr  tar.Header
	data string
}

func file(name, data string) entry {
	return entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data))}, data: data}
}

func dir(name string) entry {
	return entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755}}
}

func special(name string, flag byte, target string) entry {
	return entry{hdr: tar.Header{Typeflag: flag, Name: name, Linkname: target, Mode: 0o644}}
}

func tarball(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		hdr := e.hdr
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatalf("header %q: %v", hdr.Name, err)
		}
		if _, err := tw.Write([]byte(e.data)); err != nil {
			t.Fatalf("content %q: %v", hdr.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func contents(tree *Tree) map[string]string {
	out := map[string]string{}
	for _, p := range tree.Paths() {
		data, _ := tree.File(p)
		out[p] = string(data)
	}
	return out
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name    string
		entries []entry
		limits  Limits
		want    map[string]string
		wantErr string
	}{{
		name:    "files and directories as flux writes them",
		entries: []entry{dir("."), dir("base"), file("base/cm.yaml", "a: 1"), file("./top.yaml", "b: 2")},
		want:    map[string]string{"base/cm.yaml": "a: 1", "top.yaml": "b: 2"},
	}, {
		name:    "an empty tarball is an empty tree",
		entries: nil,
		want:    map[string]string{},
	}, {
		name:    "path traversal",
		entries: []entry{file("ok.yaml", ""), file("a/../../etc/passwd", "x")},
		wantErr: `entry "a/../../etc/passwd": path traversal`,
	}, {
		name:    "traversal that stays inside is refused too",
		entries: []entry{file("a/../b.yaml", "x")},
		wantErr: `entry "a/../b.yaml": path traversal`,
	}, {
		name:    "absolute path",
		entries: []entry{file("/etc/passwd", "x")},
		wantErr: `entry "/etc/passwd": absolute paths`,
	}, {
		name:    "backslash",
		entries: []entry{file(`a\..\b`, "x")},
		wantErr: `backslashes`,
	}, {
		name:    "symbolic link, even inside the root",
		entries: []entry{file("a.yaml", "x"), special("b.yaml", tar.TypeSymlink, "a.yaml")},
		wantErr: `entry "b.yaml": symbolic links are not allowed`,
	}, {
		name:    "hard link",
		entries: []entry{special("passwd", tar.TypeLink, "/etc/passwd")},
		wantErr: `entry "passwd": hard links are not allowed`,
	}, {
		name:    "character device",
		entries: []entry{special("null", tar.TypeChar, "")},
		wantErr: `entry "null": character devices are not allowed`,
	}, {
		name:    "block device",
		entries: []entry{special("sda", tar.TypeBlock, "")},
		wantErr: `entry "sda": block devices are not allowed`,
	}, {
		name:    "fifo",
		entries: []entry{special("pipe", tar.TypeFifo, "")},
		wantErr: `entry "pipe": FIFOs are not allowed`,
	}, {
		name:    "the same path twice",
		entries: []entry{file("a.yaml", "1"), file("./a.yaml", "2")},
		wantErr: `entry "a.yaml": the path appears twice`,
	}, {
		name:    "a file under a file",
		entries: []entry{file("a", "1"), file("a/b", "2")},
		wantErr: `entry "a/b": its parent "a" is a file`,
	}, {
		name:    "a file where a directory was",
		entries: []entry{dir("a/"), file("a", "1")},
		wantErr: `entry "a": the path is also a directory`,
	}, {
		name:    "a directory where a file was",
		entries: []entry{file("a", "1"), dir("a/")},
		wantErr: `entry "a": the path is also a file`,
	}, {
		name:    "too many entries",
		entries: []entry{file("a", ""), dir("d"), file("b", "")},
		limits:  Limits{MaxBytes: 1 << 20, MaxFiles: 2, MaxPathLength: 10},
		wantErr: `entry "b": more than the limit of 2 entries`,
	}, {
		name:    "a name too long",
		entries: []entry{file(strings.Repeat("x", 11), "")},
		limits:  Limits{MaxBytes: 1 << 20, MaxFiles: 2, MaxPathLength: 10},
		wantErr: `longer than the limit of 10 bytes`,
	}, {
		name:    "a file larger than what is left",
		entries: []entry{file("big", strings.Repeat("x", 2000))},
		limits:  Limits{MaxBytes: 1500, MaxFiles: 2, MaxPathLength: 10},
		wantErr: `entry "big": 2000 bytes: the artifact is larger than the limit`,
	}, {
		name:    "headers count against the limit",
		entries: []entry{file("a", "1"), file("b", "2"), file("c", "3")},
		limits:  Limits{MaxBytes: 1024, MaxFiles: 10, MaxPathLength: 10},
		wantErr: `the artifact is larger than the limit`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limits := tt.limits
			if limits == (Limits{}) {
				limits = testLimits
			}
			tree, err := Extract(bytes.NewReader(tarball(t, tt.entries...)), limits)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, contents(tree)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractRefusesWhatIsNotGzip(t *testing.T) {
	_, err := Extract(strings.NewReader("plain text"), testLimits)
	if err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Fatalf("got %v, want a gzip error", err)
	}
}

func TestExtractRefusesATruncatedTarball(t *testing.T) {
	data := tarball(t, file("a.yaml", strings.Repeat("x", 4096)))
	// A gzip stream cut short is caught by the decompressor; cut the tar
	// inside a valid gzip stream instead.
	var raw bytes.Buffer
	gzr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ReadFrom(gzr); err != nil {
		t.Fatal(err)
	}
	var cut bytes.Buffer
	gz := gzip.NewWriter(&cut)
	if _, err := gz.Write(raw.Bytes()[:2048]); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Extract(&cut, testLimits); err == nil || !strings.Contains(err.Error(), `entry "a.yaml"`) {
		t.Fatalf("got %v, want an error naming the truncated entry", err)
	}
}

func TestExtractRefusesInvalidLimits(t *testing.T) {
	if _, err := Extract(bytes.NewReader(tarball(t)), Limits{MaxBytes: 1}); err == nil {
		t.Fatal("zero limits were accepted")
	}
}

func TestExtractStopsAGzipBombBeforeReadingIt(t *testing.T) {
	// A 64 MiB file of zeros compresses to about 64 KiB; its header alone
	// must get it refused, with only the first few KiB of input read.
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "bomb", Size: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for range 64 {
		if _, err := tw.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	compressed := buf.Len()
	counter := &countingReader{r: &buf}
	_, err := Extract(counter, Limits{MaxBytes: 1 << 20, MaxFiles: 10, MaxPathLength: 10})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), `entry "bomb"`) {
		t.Fatalf("got %v, want ErrTooLarge naming the entry", err)
	}
	if counter.n >= compressed/2 {
		t.Errorf("read %d of %d compressed bytes, want the reading to stop at the header", counter.n, compressed)
	}
}

func TestExtractStopsManySmallFilesAtTheLimit(t *testing.T) {
	entries := make([]entry, 0, 100)
	for i := range 100 {
		entries = append(entries, file(strings.Repeat("f", i+1), strings.Repeat("x", 1000)))
	}
	_, err := Extract(bytes.NewReader(tarball(t, entries...)), Limits{MaxBytes: 50_000, MaxFiles: 1000, MaxPathLength: 200})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestWriteTarGzipRoundTrips(t *testing.T) {
	files := map[string][]byte{"b/c/d.yaml": []byte("d"), "a.yaml": []byte("a"), "b/e.json": []byte("{}"), "empty": nil}
	tree, err := NewTree(files)
	if err != nil {
		t.Fatal(err)
	}
	var first, second bytes.Buffer
	if err := tree.WriteTarGzip(&first); err != nil {
		t.Fatal(err)
	}
	if err := tree.WriteTarGzip(&second); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Error("writing the same tree twice gave different bytes")
	}
	back, err := Extract(&first, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(contents(tree), contents(back)); diff != "" {
		t.Errorf("files (-written +read):\n%s", diff)
	}
	if back.Size() != 4 || back.Len() != 4 {
		t.Errorf("size %d, len %d; want 4 and 4", back.Size(), back.Len())
	}
}

func TestNewTreeRefusesWhatExtractRefuses(t *testing.T) {
	for _, name := range []string{"../x", "/x", ".", "a/../b"} {
		if _, err := NewTree(map[string][]byte{name: nil}); err == nil {
			t.Errorf("NewTree accepted %q", name)
		}
	}
}

func TestReadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"base/cm.yaml": {Data: []byte("a")},
		"top.yaml":     {Data: []byte("b")},
	}
	tree, err := readFS(fsys, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"base/cm.yaml": "a", "top.yaml": "b"}, contents(tree)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if !tree.IsDir("base") || tree.IsDir("top.yaml") {
		t.Error("IsDir is wrong about base or top.yaml")
	}
	if _, err := readFS(fsys, Limits{MaxBytes: 1, MaxFiles: 10, MaxPathLength: 100}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge", err)
	}
	fsys["link"] = &fstest.MapFile{Mode: 0o777 | fs.ModeSymlink}
	if _, err := readFS(fsys, testLimits); err == nil || !strings.Contains(err.Error(), `"link"`) {
		t.Errorf("got %v, want the symbolic link refused by name", err)
	}
}

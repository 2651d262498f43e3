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
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// DefaultMaxInput bounds what -f reads in all, after decompression: the
// operator's bound for one set's sources.
var DefaultMaxInput = declared.DefaultLimits.Bytes

// manifestExtensions are the files a directory contributes, as for kubectl -f DIR.
var manifestExtensions = []string{".yaml", ".yml", ".json"}

// manifestReader reads the objects that -f names: files, directories (their
// manifests; every level with -R) and "-" for standard input, gzip or plain,
// at most limit bytes in all.
type manifestReader struct {
	stdin     io.Reader
	recursive bool
	limit     int64
	read      int64
	inputs    []apply.Input
}

// readManifests reads the objects that -f names (paths; directories every
// level down when recursive), at most limit bytes in all.
func readManifests(paths []string, recursive bool, stdin io.Reader, limit int64) ([]apply.Input, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no manifests: name files or directories with -f, or - for standard input")
	}
	r := &manifestReader{stdin: stdin, recursive: recursive, limit: limit}
	for _, path := range paths {
		if err := r.add(path); err != nil {
			return nil, err
		}
	}
	return r.inputs, nil
}

func (r *manifestReader) add(path string) error {
	if path == "-" {
		return r.decode("standard input", r.stdin)
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return r.file(path)
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != path && !r.recursive:
			return filepath.SkipDir
		case !d.IsDir() && slices.Contains(manifestExtensions, strings.ToLower(filepath.Ext(p))):
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, f := range files { // WalkDir walks in lexical order, as kubectl reads a directory
		if err := r.file(f); err != nil {
			return err
		}
	}
	return nil
}

func (r *manifestReader) file(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	return r.decode(path, f)
}

// decode reads one stream within what is left of the limit.
func (r *manifestReader) decode(origin string, in io.Reader) error {
	left := r.limit - r.read
	data, err := io.ReadAll(io.LimitReader(in, left+1))
	if err != nil {
		return fmt.Errorf("%s: %w", origin, err)
	}
	if data, err = apply.Inflate(data, left); err != nil {
		return fmt.Errorf("%s: the manifests hold %w; split them or raise --max-input-size", origin, err)
	}
	r.read += int64(len(data))
	inputs, err := apply.Decode(origin, data)
	if err != nil {
		return err
	}
	r.inputs = append(r.inputs, inputs...)
	return nil
}

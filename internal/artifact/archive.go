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
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"path"
)

// WriteTarGzip writes the tree as a gzip-compressed tarball, as Flux's
// artifacts are: paths relative to the root, a directory entry before the
// first file under it, and owner and times zeroed. The same tree always
// gives the same bytes, so the same content gives the same digest.
func (t *Tree) WriteTarGzip(w io.Writer) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	written := map[string]bool{}
	for _, name := range t.Paths() {
		if err := writeParents(tw, path.Dir(name), written); err != nil {
			return err
		}
		data := t.files[name]
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("writing the header of %q: %w", name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return fmt.Errorf("writing %q: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("closing the tarball: %w", err)
	}
	if err := gz.Close(); err != nil {
		return fmt.Errorf("closing the gzip stream: %w", err)
	}
	return nil
}

// writeParents writes the entries of dir and its parents not yet written,
// outermost first.
func writeParents(tw *tar.Writer, dir string, written map[string]bool) error {
	if dir == "." || written[dir] {
		return nil
	}
	if err := writeParents(tw, path.Dir(dir), written); err != nil {
		return err
	}
	written[dir] = true
	hdr := &tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("writing the directory %q: %w", dir, err)
	}
	return nil
}

// readFS reads the regular files of fsys into a tree, within limits
// (MaxBytes bounds the files' contents). Anything that is neither a regular
// file nor a directory is refused, as Extract refuses it.
func readFS(fsys fs.FS, limits Limits) (*Tree, error) {
	return readEntries(fsys, limits, nil)
}

// readEntries is readFS, which passes any entry neither a regular file nor a
// directory to other, if given, to be read as a regular file or refused.
func readEntries(fsys fs.FS, limits Limits, other func(name string, d fs.DirEntry) error) (*Tree, error) {
	if err := limits.validate(); err != nil {
		return nil, err
	}
	tree, left := newTree(), limits.MaxBytes
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name == "." {
			return nil
		}
		if len(tree.files)+len(tree.dirs) >= limits.MaxFiles {
			return fmt.Errorf("%q: more than the limit of %d entries", name, limits.MaxFiles)
		}
		if len(name) > limits.MaxPathLength {
			return fmt.Errorf("%q: the name is longer than the limit of %d bytes", name, limits.MaxPathLength)
		}
		if d.IsDir() {
			return tree.addDir(name)
		}
		if !d.Type().IsRegular() {
			if other == nil {
				return fmt.Errorf("%q: only regular files and directories are allowed", name)
			}
			if err := other(name, d); err != nil {
				return err
			}
		}
		data, err := readFileWithin(fsys, name, left)
		if err != nil {
			return err
		}
		left -= int64(len(data))
		return tree.add(name, data)
	})
	if err != nil {
		return nil, err
	}
	return tree, nil
}

func readFileWithin(fsys fs.FS, name string, left int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, left+1))
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", name, err)
	}
	if int64(len(data)) > left {
		return nil, fmt.Errorf("%q: %w", name, ErrTooLarge)
	}
	return data, nil
}

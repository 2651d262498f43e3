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
	"errors"
	"fmt"
	"io"
)

// Limits bound what Extract reads. Every field must be positive.
type Limits struct {
	// MaxBytes bounds the decompressed stream: file contents and the tar
	// headers around them. The tree's files never sum to more.
	MaxBytes int64
	// MaxFiles bounds the entries of the tarball, directories included.
	MaxFiles int
	// MaxPathLength bounds the length of each entry's name, in bytes.
	MaxPathLength int
}

func (l Limits) validate() error {
	if l.MaxBytes <= 0 || l.MaxFiles <= 0 || l.MaxPathLength <= 0 {
		return fmt.Errorf("every limit must be positive: %+v", l)
	}
	return nil
}

// ErrTooLarge is the error Extract wraps when the decompressed stream
// outgrows Limits.MaxBytes.
var ErrTooLarge = errors.New("the artifact is larger than the limit")

// Extract reads a gzip-compressed tarball into memory, within limits.
//
// Regular files and directories are read; the root entry ("." or "./") and
// PAX global headers are skipped. Every other entry is refused with an error
// naming it: symbolic and hard links (all of them, even those that stay
// within the root: a set is plain files, and a link would be a second name
// for a file or a way out), character and block devices, FIFOs, sparse
// files. Names that are absolute, hold a ".." element, a backslash or NUL,
// or are given twice are refused too, as is a file whose path is also a
// directory.
func Extract(r io.Reader, limits Limits) (*Tree, error) {
	if err := limits.validate(); err != nil {
		return nil, err
	}
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("reading the gzip stream: %w", err)
	}
	defer gz.Close()
	budget := &boundedReader{r: gz, left: limits.MaxBytes}
	return readTar(tar.NewReader(budget), budget, limits)
}

func readTar(tr *tar.Reader, budget *boundedReader, limits Limits) (*Tree, error) {
	tree := newTree()
	for entries := 0; ; entries++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return tree, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the tarball after %d entries: %w", entries, err)
		}
		if entries >= limits.MaxFiles {
			return nil, fmt.Errorf("entry %q: more than the limit of %d entries", hdr.Name, limits.MaxFiles)
		}
		if err := readEntry(tree, tr, hdr, budget, limits); err != nil {
			return nil, err
		}
	}
}

func readEntry(tree *Tree, tr *tar.Reader, hdr *tar.Header, budget *boundedReader, limits Limits) error {
	if hdr.Typeflag == tar.TypeXGlobalHeader {
		return nil
	}
	if len(hdr.Name) > limits.MaxPathLength {
		return fmt.Errorf("entry %.64q...: the name is longer than the limit of %d bytes", hdr.Name, limits.MaxPathLength)
	}
	name, err := cleanPath(hdr.Name)
	if err != nil {
		return err
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		if name == "" {
			return nil
		}
		return tree.addDir(name)
	case tar.TypeReg, tar.TypeRegA: //nolint:staticcheck // old archivers still write TypeRegA
		if name == "" {
			return fmt.Errorf("entry %q: a file cannot be the root", hdr.Name)
		}
		data, err := readContent(tr, hdr, budget)
		if err != nil {
			return err
		}
		return tree.add(name, data)
	}
	return fmt.Errorf("entry %q: %s are not allowed", hdr.Name, typeName(hdr.Typeflag))
}

// readContent reads a file whose declared size has been checked against
// what is left of the budget first, so a header that lies costs nothing.
func readContent(tr *tar.Reader, hdr *tar.Header, budget *boundedReader) ([]byte, error) {
	if hdr.Size < 0 || hdr.Size > budget.left {
		return nil, fmt.Errorf("entry %q: %d bytes: %w", hdr.Name, hdr.Size, ErrTooLarge)
	}
	data := make([]byte, hdr.Size)
	if _, err := io.ReadFull(tr, data); err != nil {
		return nil, fmt.Errorf("entry %q: reading %d bytes: %w", hdr.Name, hdr.Size, err)
	}
	return data, nil
}

func typeName(flag byte) string {
	switch flag {
	case tar.TypeSymlink:
		return "symbolic links"
	case tar.TypeLink:
		return "hard links"
	case tar.TypeChar:
		return "character devices"
	case tar.TypeBlock:
		return "block devices"
	case tar.TypeFifo:
		return "FIFOs"
	case tar.TypeGNUSparse:
		return "sparse files"
	}
	return fmt.Sprintf("entries of type %q", flag)
}

// boundedReader fails, rather than stopping quietly as io.LimitReader does,
// once more than left bytes are asked of it: a truncated tarball must not
// pass for a complete one.
type boundedReader struct {
	r    io.Reader
	left int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a stream that ends here from one that goes on.
		var probe [1]byte
		if n, err := b.r.Read(probe[:]); n > 0 {
			return 0, ErrTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

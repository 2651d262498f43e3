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
	"fmt"
	"path"
	"sort"
	"strings"
)

// Tree is the files of an artifact held in memory, by slash-separated path
// relative to the artifact root. Directories are implied by the paths of the
// files under them; an empty directory is not kept.
type Tree struct {
	files map[string][]byte
	dirs  map[string]bool
	size  int64
}

// NewTree makes a tree of the given files, checking each path as Extract
// does, so that a tree made here can be written and read back unchanged.
func NewTree(files map[string][]byte) (*Tree, error) {
	t := newTree()
	for _, name := range sortedKeys(files) {
		clean, err := cleanPath(name)
		if err != nil {
			return nil, err
		}
		if clean == "" {
			return nil, fmt.Errorf("entry %q: a file cannot be the root", name)
		}
		if err := t.add(clean, files[name]); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func newTree() *Tree {
	return &Tree{files: map[string][]byte{}, dirs: map[string]bool{}}
}

// Paths lists the files' paths in lexical order.
func (t *Tree) Paths() []string {
	return sortedKeys(t.files)
}

// File returns the content of the file at name, and whether there is one.
func (t *Tree) File(name string) ([]byte, bool) {
	data, ok := t.files[name]
	return data, ok
}

// Len is the number of files.
func (t *Tree) Len() int {
	return len(t.files)
}

// Size is the sum of the files' sizes.
func (t *Tree) Size() int64 {
	return t.size
}

// IsDir tells whether name is a directory of the tree: the root ("" or ".")
// or a parent of some file.
func (t *Tree) IsDir(name string) bool {
	return name == "" || name == "." || t.dirs[name]
}

// add adds a file at a clean path, refusing a path given twice and a file
// that would also be a directory: a tarball holding either is ambiguous.
func (t *Tree) add(name string, data []byte) error {
	if _, dup := t.files[name]; dup {
		return fmt.Errorf("entry %q: the path appears twice", name)
	}
	if t.dirs[name] {
		return fmt.Errorf("entry %q: the path is also a directory", name)
	}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if _, isFile := t.files[dir]; isFile {
			return fmt.Errorf("entry %q: its parent %q is a file", name, dir)
		}
	}
	for dir := path.Dir(name); dir != "." && !t.dirs[dir]; dir = path.Dir(dir) {
		t.dirs[dir] = true
	}
	t.files[name] = data
	t.size += int64(len(data))
	return nil
}

// addDir records a directory entry, so that a file of the same path, given
// before or after, is refused as add refuses it.
func (t *Tree) addDir(name string) error {
	if _, isFile := t.files[name]; isFile {
		return fmt.Errorf("entry %q: the path is also a file", name)
	}
	for dir := name; dir != "." && !t.dirs[dir]; dir = path.Dir(dir) {
		if _, isFile := t.files[dir]; isFile {
			return fmt.Errorf("entry %q: its parent %q is a file", name, dir)
		}
		t.dirs[dir] = true
	}
	return nil
}

// cleanPath turns a tar entry name into a clean slash-separated relative
// path ("" for the root), refusing any name that could reach outside the
// root or mean different files on different systems.
func cleanPath(name string) (string, error) {
	switch {
	case name == "":
		return "", fmt.Errorf("entry with an empty name")
	case strings.HasPrefix(name, "/"):
		return "", fmt.Errorf("entry %q: absolute paths are not allowed", name)
	case strings.ContainsAny(name, "\\\x00"):
		return "", fmt.Errorf("entry %q: backslashes and NUL are not allowed in paths", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("entry %q: path traversal (..) is not allowed", name)
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

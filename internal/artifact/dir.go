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
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ReadDir reads a directory of this machine into a tree, within limits, as
// kubectl applyset push archives it. Its regular files and directories are
// read, but for directories named .git, which are left out. A symbolic link
// to a regular file inside dir is read as that file; one that leads out of
// dir, to a directory or nowhere is refused, as is any other kind of file
// (a device, a FIFO, a socket). The directory is opened as an os.Root, so
// that nothing outside it is read even if it changes while being read.
func ReadDir(dir string, limits Limits) (*Tree, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	fsys := skipGit{root.FS()}
	return readEntries(fsys, limits, func(name string, d fs.DirEntry) error {
		if d.Type()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%q: only regular files, directories and links to files inside the directory are allowed (%s)", name, d.Type())
		}
		return checkLink(root, real, name)
	})
}

// checkLink allows a symbolic link that leads to a regular file inside the
// directory whose real path is real.
func checkLink(root *os.Root, real, name string) error {
	target, err := filepath.EvalSymlinks(filepath.Join(real, filepath.FromSlash(name)))
	if err != nil {
		return fmt.Errorf("%q: a symbolic link that leads nowhere: %w", name, err)
	}
	if rel, err := filepath.Rel(real, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%q: a symbolic link that leaves the directory (to %s)", name, target)
	}
	// Stat through the root: it refuses a link that leaves it, should the
	// link have changed since.
	info, err := root.Stat(filepath.FromSlash(name))
	if err != nil {
		return fmt.Errorf("%q: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%q: a symbolic link to a %s; only links to regular files are followed", name, kindOf(info.Mode()))
	}
	return nil
}

func kindOf(mode fs.FileMode) string {
	if mode.IsDir() {
		return "directory"
	}
	return "special file (" + mode.Type().String() + ")"
}

// skipGit hides the .git directories of a file system.
type skipGit struct{ fs.FS }

func (s skipGit) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(s.FS, name)
	if err != nil {
		return nil, err
	}
	kept := entries[:0]
	for _, e := range entries {
		if !e.IsDir() || e.Name() != ".git" {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

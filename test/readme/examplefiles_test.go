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

package readme

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// Each directory of examples/ is something a person copies, so the suite
// must touch what is in it: its README has an example the suite runs, and
// every file of it is named by a marked example of that README (itself or a
// directory above it, as `kubectl kustomize dir` names its files), so no file
// sits there unread.
func TestEveryExampleFileIsUsed(t *testing.T) {
	root := checkout(t)
	dirs, err := os.ReadDir(filepath.Join(root, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := "examples/" + d.Name()
		readme := dir + "/README.md"
		examples, err := parseExamples(filepath.Join(root, readme))
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		var run, marked strings.Builder
		for _, e := range examples {
			if e.mark == markRun {
				run.WriteString(e.body)
			}
			if e.mark != "" {
				marked.WriteString(e.body)
			}
		}
		if run.Len() == 0 {
			t.Errorf("%s: no example marked <!-- example: run ID --> runs anything of it", readme)
		}
		for _, file := range filesUnder(t, root, dir) {
			if file != readme && !namesFileOrDirAbove(marked.String(), file, dir) {
				t.Errorf("%s: no marked example of %s uses it", file, readme)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("examples/ holds no example")
	}
}

// filesUnder lists the files under dir of the checkout, relative to it.
func filesUnder(t *testing.T, root, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// namesFileOrDirAbove reports whether text names file, or a directory
// between it and top, as a word of its own.
func namesFileOrDirAbove(text, file, top string) bool {
	for p := file; strings.HasPrefix(p, top+"/"); p = path.Dir(p) {
		for _, word := range strings.Fields(text) {
			if word == p || word == p+"/" {
				return true
			}
		}
	}
	return false
}

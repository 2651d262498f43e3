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

package layout

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pathLike is a backquoted name that starts with one of the repository's
// top-level folders.
var pathLike = regexp.MustCompile("`((?:api|cmd|config|controllers|docs|hack|internal|pkg|test)/[A-Za-z0-9_./-]*)`")

// TestArchitectureNamesPathsThatExist keeps the overview in step with the
// tree: every path it names in backquotes exists.
func TestArchitectureNamesPathsThatExist(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range pathLike.FindAllStringSubmatch(string(data), -1) {
		p := strings.TrimSuffix(m[1], "/")
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("docs/architecture.md names %s, which does not exist", p)
		}
	}
}

// TestDesignRecordsAreIndexed keeps every decision record reachable from
// the index the overview links to.
func TestDesignRecordsAreIndexed(t *testing.T) {
	index, err := os.ReadFile(filepath.Join(root, "docs", "design", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	records, err := filepath.Glob(filepath.Join(root, "docs", "design", "[0-9]*.md"))
	if err != nil || len(records) == 0 {
		t.Fatalf("no design records (%v)", err)
	}
	for _, r := range records {
		if name := filepath.Base(r); !strings.Contains(string(index), "("+name+")") {
			t.Errorf("docs/design/%s is not in docs/design/README.md", name)
		}
	}
}

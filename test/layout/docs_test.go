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
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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

// screenshots are the pictures of kubectl applyset ui, and of a trace, that
// make screenshots takes in headless Chromium (test/install, test/tracing)
// and the docs show.
var screenshots = []string{"docs/images/ui-sets-list.png", "docs/images/ui-set-failing-member.png", "docs/images/ui-plan.png",
	"docs/images/trace.png"}

// TestScreenshotsExistAndAreShown keeps the page's screenshots in the tree,
// PNGs of the specs' 1280x800 viewport, each shown by the README or a page of
// docs/. Their pixels are not compared: make screenshots regenerates them.
func TestScreenshotsExistAndAreShown(t *testing.T) {
	var docs strings.Builder
	pages := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, _ os.DirEntry, err error) error {
		if strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(data)
	}
	for _, s := range screenshots {
		data, err := os.ReadFile(filepath.Join(root, s))
		if err != nil {
			t.Errorf("%v: run make screenshots", err)
			continue
		}
		// A PNG's signature, then its IHDR chunk: width and height, big-endian.
		if len(data) < 24 || string(data[1:4]) != "PNG" || string(data[12:16]) != "IHDR" {
			t.Errorf("%s is not a PNG", s)
			continue
		}
		width := int(data[16])<<24 | int(data[17])<<16 | int(data[18])<<8 | int(data[19])
		height := int(data[20])<<24 | int(data[21])<<16 | int(data[22])<<8 | int(data[23])
		if width != 1280 || height != 800 {
			t.Errorf("%s is %dx%d, not the specs' 1280x800 viewport: run make screenshots", s, width, height)
		}
		if !strings.Contains(docs.String(), filepath.Base(s)) {
			t.Errorf("%s is shown by no page: neither README.md nor docs/ names it", s)
		}
	}
}

// pageLook are the files that change how the page looks in a screenshot.
var pageLook = []string{"internal/applysetcli/ui/templates", "internal/applysetcli/ui/static/style.css",
	"internal/applysetcli/ui/static/graph.css", "internal/applysetcli/ui/static/graph.js"}

// TestScreenshotsAreRecent asks that the screenshots were committed with or
// after the last commit that changed how the page looks, so the docs show
// the page as it is: make screenshots, then commit them with the change.
// Outside a git checkout with history it has nothing to compare.
func TestScreenshotsAreRecent(t *testing.T) {
	last := func(paths ...string) int64 {
		out, err := exec.Command("git", append([]string{"-C", root, "log", "-1", "--format=%ct", "--"}, paths...)...).Output()
		if err != nil {
			t.Skipf("no git history to compare: %v", err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			t.Skipf("no commit of %v in this checkout", paths)
		}
		return n
	}
	look := last(pageLook...)
	for _, s := range screenshots {
		if shot := last(s); shot < look {
			t.Errorf("%s was committed before the last change of how the page looks (%v): run make screenshots and commit them", s, pageLook)
		}
	}
}

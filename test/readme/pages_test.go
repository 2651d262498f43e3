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
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Each page of docs/ is written for one reader and says whom on its first
// line. The architecture, kept by its own rules, and decision records
// (docs/design) are not such pages.
func TestEveryPageStatesItsAudience(t *testing.T) {
	root := checkout(t)
	docs, err := documents(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		if doc == "README.md" || doc == "docs/architecture.md" || strings.HasPrefix(doc, "docs/design/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		if !strings.HasPrefix(first, "Audience: ") {
			t.Errorf("%s: the first line says whom the page is for (Audience: ...), not %q", doc, first)
		}
	}
}

var (
	linkPattern    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan       = regexp.MustCompile("`[^`]*`")
	headingPattern = regexp.MustCompile(`^#{1,6} +(.*?) *#*$`)
)

// Every relative link of the README and docs/ names a file of the checkout,
// and a heading of it when it names one: pages moved, and anchors with them.
func TestLinksResolve(t *testing.T) {
	root := checkout(t)
	docs, err := documents(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		for _, l := range links(t, filepath.Join(root, doc)) {
			target, anchor, _ := strings.Cut(l.target, "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file := doc
			if target != "" {
				file = path.Clean(path.Join(path.Dir(doc), target))
				if _, err := os.Stat(filepath.Join(root, file)); err != nil {
					t.Errorf("%s:%d: the link %s names no file of the checkout", doc, l.line, l.target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			if !headingSlugs(t, filepath.Join(root, file))[anchor] {
				t.Errorf("%s:%d: the link %s names no heading of %s", doc, l.line, l.target, file)
			}
		}
	}
}

// remoteBase matches a kustomize base or component of this repository
// fetched from GitHub, with its query.
var remoteBase = regexp.MustCompile(`github\.com/applyset-operator/applyset-operator/+config/[^\s,\]"']*`)

// A remote base of this repository names a release: without a ref it is
// whatever main is, manifests and image tag alike, the day it is built.
func TestRemoteBasesArePinned(t *testing.T) {
	root := checkout(t)
	docs, err := documents(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, base := range remoteBase.FindAllString(line, -1) {
				if !regexp.MustCompile(`\?ref=v[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(base) {
					t.Errorf("%s:%d: %s names no release: end it with ?ref=vX.Y.Z", doc, i+1, base)
				}
			}
		}
	}
}

type link struct {
	line   int
	target string
}

// links are the link targets of a Markdown file outside its fenced blocks.
func links(t *testing.T, file string) []link {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []link
	inFence := false
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range linkPattern.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			out = append(out, link{line: i + 1, target: m[1]})
		}
	}
	return out
}

// headingSlugs are the anchors GitHub gives a Markdown file's headings:
// lower case, without punctuation, spaces as hyphens, and -1, -2... for
// repeats.
func headingSlugs(t *testing.T, file string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	slugs, seen := map[string]bool{}, map[string]int{}
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		m := headingPattern.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		slug := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, m[1])
		if n := seen[slug]; n > 0 {
			slugs[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			slugs[slug] = true
		}
		seen[slug]++
	}
	return slugs
}

// The Events reference names every reason the code gives an Event or a
// condition: the Reason* constants of api/, controllers/ and pkg/, and the
// reasons written out in Eventf calls.
func TestEveryReasonIsDocumented(t *testing.T) {
	root := checkout(t)
	data, err := os.ReadFile(filepath.Join(root, "docs", "reference", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	reasons := map[string]string{}
	fset := token.NewFileSet()
	for _, dir := range []string{"api", "controllers", "pkg"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(file string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(file, ".go") || strings.HasSuffix(file, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ValueSpec:
					for i, name := range n.Names {
						if strings.HasPrefix(name.Name, "Reason") && i < len(n.Values) {
							if value, ok := stringLiteral(n.Values[i]); ok {
								reasons[value] = fset.Position(name.Pos()).String()
							}
						}
					}
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Eventf" && len(n.Args) > 3 {
						if value, ok := stringLiteral(n.Args[3]); ok {
							reasons[value] = fset.Position(n.Pos()).String()
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(reasons) < 50 {
		t.Fatalf("found only %d reasons in the code: %v", len(reasons), reasons)
	}
	for reason, where := range reasons {
		if !strings.Contains(page, "`"+reason+"`") {
			t.Errorf("docs/reference/events.md does not name the reason %s (%s)", reason, where)
		}
	}
}

func stringLiteral(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	value, err := strconv.Unquote(lit.Value)
	return value, err == nil
}

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
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The marks: an HTML comment on the line before an example's opening fence
// says what the suite does with it. GitHub shows none of them. An example
// inside a list item is indented with its mark; the indentation is not part
// of the example.
//
//	<!-- example: run ID -->        run it in bash, then the check named ID
//	<!-- example: file NAME -->     write it to NAME, for later examples to use
//	<!-- example: fragment KIND --> dry-run create a KIND with it as its spec
//	<!-- example: skip REASON -->   leave it, for the reason given
const (
	markRun      = "run"
	markFile     = "file"
	markFragment = "fragment"
	markSkip     = "skip"
)

var (
	markPattern  = regexp.MustCompile(`^<!-- example: (run|file|fragment|skip) (\S.*?) -->$`)
	anyMark      = regexp.MustCompile(`^<!--\s*example`)
	fencePattern = regexp.MustCompile("^( *)```([a-z]*)\\s*$")
)

// testedLanguages are the fences whose examples must carry a mark: what a
// user is meant to type or save. Other fences (console, text) show output.
var testedLanguages = []string{"sh", "bash", "shell", "yaml", "yml"}

// example is one fenced block of the README or a page of docs/.
type example struct {
	// file is the document it is in, relative to the checkout.
	file string
	// line is the line of its opening fence, counted from 1.
	line int
	lang string
	// mark and arg are its mark's verb and argument, empty without one.
	mark, arg string
	body      string
}

func (e example) String() string {
	if e.mark == "" {
		return fmt.Sprintf("%s:%d (%s, no mark)", e.file, e.line, e.lang)
	}
	return fmt.Sprintf("%s:%d (%s %s)", e.file, e.line, e.mark, e.arg)
}

// documents are the Markdown files whose examples the suite runs, relative
// to the checkout, in the order it runs them: the README, CONTRIBUTING.md
// and SECURITY.md, then every page under docs/, then every page under
// examples/, each in lexical order of its path.
func documents(root string) ([]string, error) {
	docs := []string{"README.md", "CONTRIBUTING.md", "SECURITY.md"}
	for _, dir := range []string{"docs", "examples"} {
		pages, err := markdownUnder(root, dir)
		if err != nil {
			return nil, err
		}
		docs = append(docs, pages...)
	}
	return docs, nil
}

// markdownUnder lists the Markdown files under dir of the checkout, sorted.
func markdownUnder(root, dir string) ([]string, error) {
	var pages []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".md" {
			return err
		}
		rel, err := filepath.Rel(root, path)
		pages = append(pages, filepath.ToSlash(rel))
		return err
	})
	slices.Sort(pages)
	return pages, err
}

// allExamples reads the examples of every document, in order.
func allExamples(root string) ([]example, error) {
	docs, err := documents(root)
	if err != nil {
		return nil, err
	}
	var all []example
	for _, doc := range docs {
		examples, err := parseExamples(filepath.Join(root, doc))
		if err != nil {
			return nil, err
		}
		for i := range examples {
			examples[i].file = doc
		}
		all = append(all, examples...)
	}
	return all, nil
}

// parseExamples reads every fenced block of a Markdown file with its mark.
// A mark not followed by a fence, or one it cannot read, is an error.
func parseExamples(path string) ([]example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		examples []example
		current  *example
		pending  *example // a mark waiting for its fence
		body     strings.Builder
		indent   string // the opening fence's, taken off each line of the body
		n        int
	)
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for scanner.Scan() {
		n++
		line := scanner.Text()
		if current != nil {
			if strings.TrimSpace(line) == "```" {
				current.body = body.String()
				examples = append(examples, *current)
				current = nil
				body.Reset()
				continue
			}
			body.WriteString(strings.TrimPrefix(line, indent))
			body.WriteByte('\n')
			continue
		}
		if m := fencePattern.FindStringSubmatch(line); m != nil {
			current = &example{line: n, lang: m[2]}
			indent = m[1]
			if pending != nil {
				current.mark, current.arg = pending.mark, pending.arg
				pending = nil
			}
			continue
		}
		if pending != nil {
			return nil, fmt.Errorf("%s:%d: the mark is not followed by a fenced example", path, pending.line)
		}
		if m := markPattern.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			pending = &example{line: n, mark: m[1], arg: m[2]}
		} else if anyMark.MatchString(strings.TrimSpace(line)) {
			return nil, fmt.Errorf("%s:%d: a mark reads <!-- example: run|file|fragment|skip ARG -->, not %q", path, n, line)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if current != nil {
		return nil, fmt.Errorf("%s:%d: the fence is not closed", path, current.line)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: the mark is not followed by a fenced example", path, pending.line)
	}
	return examples, nil
}

// TestEveryExampleIsMarked keeps the README and this suite in step: every
// example a user may type or save says what the suite does with it, and
// every check of the suite has its example.
func TestEveryExampleIsMarked(t *testing.T) {
	examples, err := allExamples(checkout(t))
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, e := range examples {
		switch {
		case e.mark == "" && slices.Contains(testedLanguages, e.lang):
			t.Errorf("%s: mark it <!-- example: run|file|fragment|skip ... --> on the line before its fence", e)
		case e.mark == markRun:
			if ran[e.arg] {
				t.Errorf("%s: a second example named %s", e, e.arg)
			}
			ran[e.arg] = true
			if _, ok := checks[e.arg]; !ok {
				t.Errorf("%s: no check named %s in checks_test.go says what it must do", e, e.arg)
			}
		case e.mark == markFragment && !strings.HasPrefix(strings.TrimSpace(e.body), "spec:"):
			t.Errorf("%s: a fragment is a spec: it starts with spec:", e)
		}
	}
	for id := range setups {
		if _, ok := checks[id]; !ok {
			t.Errorf("setup %s has no check, and so no example to run before", id)
		}
	}
	for id := range checks {
		if !ran[id] {
			t.Errorf("check %s has no example marked <!-- example: run %s --> in the README or docs/", id, id)
		}
	}
}

func TestParseExamples(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		path := dir + "/README.md"
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	got, err := parseExamples(write("text\n<!-- example: run first -->\n```sh\necho a\n\necho b\n```\n\n```console\n$ x\n```\n" +
		"<!-- example: skip needs a registry -->\n```yaml\nkind: X\n```\n" +
		"1. a step\n\n   <!-- example: file x.yaml -->\n   ```yaml\n   kind: Y\n   spec:\n     a: 1\n   ```\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []example{
		{line: 3, lang: "sh", mark: markRun, arg: "first", body: "echo a\n\necho b\n"},
		{line: 9, lang: "console", body: "$ x\n"},
		{line: 13, lang: "yaml", mark: markSkip, arg: "needs a registry", body: "kind: X\n"},
		{line: 19, lang: "yaml", mark: markFile, arg: "x.yaml", body: "kind: Y\nspec:\n  a: 1\n"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parseExamples:\n got %#v\nwant %#v", got, want)
	}
	for _, bad := range []string{
		"<!-- example: run a -->\ntext\n```sh\nx\n```\n",
		"<!-- example: runs a -->\n```sh\nx\n```\n",
		"```sh\nnot closed\n",
		"<!-- example: file x.yaml -->\n",
	} {
		if _, err := parseExamples(write(bad)); err == nil {
			t.Errorf("parseExamples(%q) found no error", bad)
		}
	}
}

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

// Package layout checks the shape of the code base: files and functions
// small enough to read, exported names used outside their package, and a
// design overview that names only paths that exist.
package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository, two levels up.
const root = "../.."

// sourceDirs hold the code the limits apply to.
var sourceDirs = []string{"cmd", "controllers", "internal", "pkg"}

const (
	maxFileLines     = 400
	maxFunctionLines = 80
)

// goFiles walks the source directories' Go files, tests included.
func goFiles(t *testing.T, each func(path string)) {
	t.Helper()
	for _, dir := range sourceDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasPrefix(d.Name(), "zz_generated") {
				return err
			}
			each(path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestFilesAndFunctionsAreSmall(t *testing.T) {
	fset := token.NewFileSet()
	goFiles(t, func(path string) {
		if strings.HasSuffix(path, "_test.go") {
			return
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if lines := fset.File(f.Pos()).LineCount(); lines > maxFileLines {
			t.Errorf("%s has %d lines, more than %d: split it by concern", rel(path), lines, maxFileLines)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFunctionLines {
				t.Errorf("%s: %s has %d lines, more than %d", rel(fset.Position(fn.Pos()).String()), fn.Name.Name, n, maxFunctionLines)
			}
		}
	})
}

func rel(path string) string {
	return strings.TrimPrefix(path, root+string(os.PathSeparator))
}

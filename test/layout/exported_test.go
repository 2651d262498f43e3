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
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/applyset-operator/applyset-operator"

// name is an exported name of a package.
type name struct{ pkg, ident string }

// TestExportedNamesHaveUsers finds every exported function, constant and
// variable of a package under pkg/ or internal/ that nothing outside the
// package uses: no other package, no external test package (package x_test,
// where a library's Examples live). Such a name is the package's own and
// says so by being unexported.
func TestExportedNamesHaveUsers(t *testing.T) {
	fset := token.NewFileSet()
	declared, used := map[name]string{}, map[name]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "bin" || d.Name() == "dist" || strings.HasPrefix(d.Name(), ".")) && p != root:
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".go"):
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel(filepath.Dir(p)))
		own := path.Join(module, dir)
		external := strings.HasSuffix(f.Name.Name, "_test")
		if !external && !strings.HasSuffix(p, "_test.go") && (strings.HasPrefix(dir, "pkg/") || strings.HasPrefix(dir, "internal/")) {
			for _, ident := range exported(f) {
				declared[name{own, ident}] = fset.Position(f.Pos()).Filename
			}
		}
		imports := map[string]string{}
		for _, spec := range f.Imports {
			importPath, _ := strconv.Unquote(spec.Path.Value)
			local := path.Base(importPath)
			if spec.Name != nil {
				local = spec.Name.Name
			}
			imports[local] = importPath
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && imports[x.Name] != "" && (imports[x.Name] != own || external) {
				used[name{imports[x.Name], sel.Sel.Name}] = true
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var unused []string
	for n, file := range declared {
		if !used[n] {
			unused = append(unused, rel(file)+": "+n.ident)
		}
	}
	sort.Strings(unused)
	for _, u := range unused {
		t.Errorf("%s is exported, but nothing outside its package uses it: unexport it, or give it a user", u)
	}
}

// exported are the exported functions, constants and variables f declares at
// its top level; methods and types are not counted.
func exported(f *ast.File) []string {
	var out []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			if d.Tok != token.CONST && d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if n.IsExported() {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}

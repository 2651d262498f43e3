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

// Package kbuild reads the objects a directory of an artifact declares: the
// output of its kustomization, built in memory with kustomize, or else its
// YAML and JSON files. A kustomization is walked before it is built, so
// that one which would fetch from the network, run a plugin, read outside
// the artifact or produce too much is refused before kustomize runs.
package kbuild

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// Document is a stream of YAML or JSON documents and the path in the
// artifact it was read from: a file, or the kustomization built. It is
// what apply.Decode reads.
type Document struct {
	Name string
	Data []byte
}

// Read returns the documents dir declares ("" or "." for the root).
//
// When dir holds a kustomization file (kustomization.yaml,
// kustomization.yml or Kustomization), its build is the one document. The
// build reads nothing but the artifact: a resource, component, patch,
// generator file or plugin config naming a URL or Git repository is
// refused, as is a path that leaves the artifact; kustomize's own
// root-only restriction then keeps each kustomization to its directory,
// bases aside. Only kustomize's builtin generators and transformers run:
// no exec, container or Go plugin, no KRM function, no helm chart.
//
// What the build produces is bounded before and while it runs: the walk
// counts what its resources and generators produce, with multiplicity,
// and refuses a build that would produce too much; the build itself runs
// in a child process of this binary, ended as soon as its heap, its
// output or its objects pass limits, or ctx ends. Patches and
// replacements, which may copy what they touch onto many objects, are
// caught there. A refusal at a limit is a *LimitError.
//
// Otherwise every .yaml, .yml and .json file under dir is a document, in
// lexical order of their paths.
func Read(ctx context.Context, files *artifact.Tree, dir string, limits Limits) ([]Document, error) {
	if err := limits.validate(); err != nil {
		return nil, err
	}
	target, err := checkLocalPath("", dir, "path")
	if err != nil {
		return nil, err
	}
	if target == "." {
		target = ""
	}
	if !files.IsDir(target) {
		return nil, fmt.Errorf("path %q is not a directory of the artifact", dir)
	}
	file, err := kustomizationFile(files, target)
	if err != nil {
		return nil, err
	}
	if file == "" {
		return manifestFiles(files, target, limits)
	}
	if _, err := newWalker(files, limits).walk(target, 1, false); err != nil {
		return nil, err
	}
	out, err := isolate(ctx, files, target, file, limits)
	if err != nil {
		return nil, err
	}
	return []Document{{Name: file, Data: out}}, nil
}

// manifestFiles reads the YAML and JSON files under dir, within
// limits.MaxBytes.
func manifestFiles(files *artifact.Tree, dir string, limits Limits) ([]Document, error) {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	var docs []Document
	var size int64
	for _, p := range files.Paths() {
		if !strings.HasPrefix(p, prefix) || !isManifest(p) {
			continue
		}
		data, _ := files.File(p)
		if size += int64(len(data)); size > limits.MaxBytes {
			return nil, &LimitError{fmt.Sprintf("%s: the files under %q hold more than %s", p, dir, text.Bytes(limits.MaxBytes))}
		}
		docs = append(docs, Document{Name: p, Data: data})
	}
	return docs, nil
}

func isManifest(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

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
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/applyset-operator/applyset-operator/pkg/artifact"
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
// Otherwise every .yaml, .yml and .json file under dir is a document, in
// lexical order of their paths.
func Read(files *artifact.Tree, dir string, limits Limits) ([]Document, error) {
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
	return build(files, target, file, limits)
}

func build(files *artifact.Tree, dir, file string, limits Limits) ([]Document, error) {
	if _, err := newWalker(files, limits).walk(dir, 1, false); err != nil {
		return nil, err
	}
	fSys := filesys.MakeFsInMemory()
	for _, p := range files.Paths() {
		data, _ := files.File(p)
		if err := fSys.WriteFile("/"+p, data); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsRootOnly
	opts.PluginConfig = types.DisabledPluginConfig()
	resources, err := krusty.MakeKustomizer(opts).Run(fSys, "/"+dir)
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", file, err)
	}
	if int64(resources.Size()) > limits.MaxObjects {
		return nil, fmt.Errorf("building %s: %d objects, more than the limit of %d", file, resources.Size(), limits.MaxObjects)
	}
	out, err := resources.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", file, err)
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
			return nil, fmt.Errorf("%s: the files under %q are more than the limit of %d bytes", p, dir, limits.MaxBytes)
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

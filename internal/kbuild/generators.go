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

package kbuild

import (
	"path"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
)

// generated is what one ConfigMap or Secret generator writes into its
// object: its literals, and the files and env files it reads, whole, each
// time the generator is used. A file named twice counts twice, as
// kustomize copies it twice; a Secret holds its values in base64.
func (w *walker) generated(dir string, src types.KvPairSources, secret bool) int64 {
	var n int64
	for _, literal := range src.LiteralSources {
		n += int64(len(literal))
	}
	for _, file := range src.FileSources {
		if _, p, ok := strings.Cut(file, "="); ok {
			file = p
		}
		n += w.sizeUnder(path.Join(dir, file))
	}
	for _, env := range src.EnvSources {
		n += w.sizeUnder(path.Join(dir, env))
	}
	if secret {
		n = (n + 2) / 3 * 4
	}
	return n
}

// generatedByConfig is the kind of object a generator config in
// generators: makes ("" for one the walk does not know) and what it writes
// into it, as generated counts it for the same fields of a kustomization.
func (w *walker) generatedByConfig(dir string, config map[string]any) (string, int64) {
	src := types.KvPairSources{
		LiteralSources: stringList(config["literals"]),
		FileSources:    stringList(config["files"]),
		EnvSources:     append(stringList(config["envs"]), stringList(config["env"])...),
	}
	switch config["kind"] {
	case "ConfigMapGenerator":
		return "ConfigMap", w.generated(dir, src, false)
	case "SecretGenerator":
		return "Secret", w.generated(dir, src, true)
	}
	return "", 0
}

// sizeUnder is the size of the file at p, or of every file under the
// directory p (a generator reads each file of a directory it names); 0 when
// there is none, which kustomize then refuses.
func (w *walker) sizeUnder(p string) int64 {
	if data, ok := w.files.File(p); ok {
		return int64(len(data))
	}
	if !w.files.IsDir(p) {
		return 0
	}
	var n int64
	for _, f := range w.files.Paths() {
		if strings.HasPrefix(f, p+"/") || p == "." {
			data, _ := w.files.File(f)
			n += int64(len(data))
		}
	}
	return n
}

// stringList reads a YAML value that is a string or a list of strings.
func stringList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, item := range v {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

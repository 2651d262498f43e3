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
	"fmt"
	"net/url"
	"path"
	"strings"
)

// checkLocalPath checks a path a kustomization names, relative to its
// directory dir: it must not be a URL (kustomize would fetch it, out of the
// host policy's sight, or clone it with git), absolute, or lead outside the
// artifact. It returns the path relative to the artifact root.
func checkLocalPath(dir, ref, where string) (string, error) {
	if looksRemote(ref) {
		return "", fmt.Errorf("%s: %q is remote: only paths inside the artifact are allowed", where, ref)
	}
	if strings.HasPrefix(ref, "/") {
		return "", fmt.Errorf("%s: %q is absolute: paths are relative to the kustomization", where, ref)
	}
	joined := path.Join(dir, ref)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return "", fmt.Errorf("%s: %q leads outside the artifact", where, ref)
	}
	return joined, nil
}

// looksRemote tells whether kustomize would read ref from the network: a
// URL of any scheme, or one of the forms it reads as a Git repository, the
// scp-like user@host:org/repo and github.com:org/repo among them (any ":"
// before the first "/" reads as a host; no artifact path needs one).
func looksRemote(ref string) bool {
	if u, err := url.Parse(ref); err == nil && u.Scheme != "" {
		return true
	}
	if first, _, _ := strings.Cut(ref, "/"); strings.ContainsAny(first, ":@") {
		return true
	}
	lower := strings.ToLower(ref)
	for _, prefix := range []string{"git@", "git::", "github.com/", "gitlab.com/", "bitbucket.org/", "ssh:", "file:"} {
		if strings.HasPrefix(lower, prefix) {
			return true
		}
	}
	return strings.Contains(lower, "://") || strings.Contains(lower, ".git/") || strings.HasSuffix(lower, ".git") ||
		strings.Contains(lower, "?ref=")
}

// pathKeys are the keys whose values kustomize or its builtin plugins read
// as file paths (or, for some, as inline content, which is never a URL).
var pathKeys = map[string]bool{
	"resources": true, "components": true, "bases": true, "crds": true, "configurations": true,
	"generators": true, "transformers": true, "validators": true, "patchesstrategicmerge": true,
	"path": true, "paths": true, "files": true, "envs": true, "env": true,
	"targetfilepath": true, "valuesfile": true, "argsfromfile": true,
}

// isPathKey tells whether values under key are read as paths.
func isPathKey(key string) bool {
	lower := strings.ToLower(key)
	return pathKeys[lower] || strings.HasSuffix(lower, "path") || strings.HasSuffix(lower, "file") || strings.HasSuffix(lower, "files")
}

// checkPathValues walks a decoded YAML document of file and checks every
// string under a path key with checkLocalPath, so that no field of a
// kustomization or of a builtin plugin's config (PatchTransformer's path, a
// generator's files, ...) can name a URL or leave the artifact.
func checkPathValues(dir string, doc any, file string) error {
	return checkFieldPaths(dir, doc, file, "")
}

func checkFieldPaths(dir string, doc any, file, field string) error {
	switch v := doc.(type) {
	case map[string]any:
		for key, value := range v {
			at := key
			if field != "" {
				at = field + "." + key
			}
			if isPathKey(key) {
				if err := checkPathStrings(dir, value, file, at); err != nil {
					return err
				}
			}
			if err := checkFieldPaths(dir, value, file, at); err != nil {
				return err
			}
		}
	case []any:
		for i, item := range v {
			if err := checkFieldPaths(dir, item, file, fmt.Sprintf("%s[%d]", field, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkPathStrings(dir string, value any, file, field string) error {
	switch v := value.(type) {
	case string:
		return checkPathString(dir, v, file+" "+field)
	case []any:
		for i, item := range v {
			if s, ok := item.(string); ok {
				if err := checkPathString(dir, s, fmt.Sprintf("%s %s[%d]", file, field, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkPathString checks one value; inline content (a patch or a plugin
// config written in place) holds a newline and is not a path.
func checkPathString(dir, value, where string) error {
	if strings.Contains(value, "\n") {
		return nil
	}
	// A generator's files may be written key=path.
	if _, p, ok := strings.Cut(value, "="); ok && !looksRemote(value) {
		value = p
	}
	_, err := checkLocalPath(dir, value, where)
	return err
}

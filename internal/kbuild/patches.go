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
	"bytes"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// What a kustomization's patches, labels and annotations may add to the
// objects they reach, counted before the build: a patch as many times as
// its target selects objects (each of its kind, or every object when the
// kind is a pattern or not given), labels and annotations once on every
// object. JSON 6902 copies and replacements, which copy what is already
// there, are left to the bounds the build runs under.

// patched is what k's patches and common labels and annotations add to the
// objects of in.
func (w *walker) patched(dir string, k *types.Kustomization, in cost) int64 {
	var n int64
	//nolint:staticcheck // kustomize still applies the deprecated fields, so what they add counts
	for _, p := range append(append([]types.Patch{}, k.Patches...), k.PatchesJson6902...) {
		body := w.patchBody(dir, p.Path, p.Patch)
		n += int64(len(body)) * selected(p.Target, body, in)
	}
	for _, p := range k.PatchesStrategicMerge { //nolint:staticcheck // as above
		body := w.patchBody(dir, "", string(p))
		if !strings.Contains(string(p), "\n") {
			body = w.patchBody(dir, string(p), "")
		}
		n += int64(len(body)) * selected(nil, body, in)
	}
	var added int
	for key, value := range k.CommonLabels { //nolint:staticcheck // as above
		added += len(key) + len(value)
	}
	for key, value := range k.CommonAnnotations {
		added += len(key) + len(value)
	}
	for _, l := range k.Labels {
		for key, value := range l.Pairs {
			added += len(key) + len(value)
		}
	}
	return n + int64(added)*in.objects
}

// transformed is what the patch and label transformers of a transformers
// entry, ref, add to the objects of in.
func (w *walker) transformed(dir, ref string, in cost) int64 {
	data := []byte(ref)
	if !strings.Contains(ref, "\n") {
		var ok bool
		if data, ok = w.files.File(path.Join(dir, ref)); !ok {
			return 0 // a kustomization of transformers: its configs reach no objects of in
		}
	}
	var n int64
	_ = eachDocument(data, ref, func(doc []byte) error {
		var config struct {
			Kind   string          `json:"kind"`
			Path   string          `json:"path"`
			Patch  string          `json:"patch"`
			Target *types.Selector `json:"target"`
		}
		if yaml.Unmarshal(doc, &config) != nil {
			return nil // checkPluginConfig refused it already
		}
		switch config.Kind {
		case "PatchTransformer", "PatchJson6902Transformer", "PatchStrategicMergeTransformer":
			body := w.patchBody(dir, config.Path, config.Patch)
			n += int64(len(body)) * selected(config.Target, body, in)
		case "LabelTransformer", "AnnotationsTransformer", "PrefixSuffixTransformer", "PrefixTransformer", "SuffixTransformer":
			n += int64(len(doc)) * in.objects
		}
		return nil
	})
	return n
}

// patchBody is a patch's content: written in place, or the file at p.
func (w *walker) patchBody(dir, p, inline string) []byte {
	if inline != "" || p == "" {
		return []byte(inline)
	}
	data, _ := w.files.File(path.Join(dir, p))
	return data
}

// selected bounds the objects of in a patch reaches: those of its target's
// kind, or, with no target, of the kinds its documents name.
func selected(target *types.Selector, body []byte, in cost) int64 {
	if target != nil {
		return ofKind(target.Kind, in)
	}
	var n int64
	_ = eachDocument(body, "patch", func(doc []byte) error {
		n += ofKind(documentKind(doc), in)
		return nil
	})
	return n
}

// ofKind counts the objects of in that may be of kind: every object when
// kind is empty or a pattern, else those of the kind and those whose kind
// the walk could not tell.
func ofKind(kind string, in cost) int64 {
	if kind == "" || strings.ContainsAny(kind, `.*+?()[]{}|^$\`) {
		return in.objects
	}
	return in.kinds[kind] + in.kinds[""]
}

// documentKind reads the kind a YAML document declares at its top level,
// or "" where a line scan cannot tell it: a List (its items are objects of
// any kind), JSON, a kind written across lines.
func documentKind(doc []byte) string {
	for rest := doc; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		value, ok := bytes.CutPrefix(line, []byte("kind:"))
		if !ok {
			continue
		}
		value, _, _ = bytes.Cut(value, []byte(" #"))
		kind := strings.Trim(strings.TrimSpace(string(value)), `"'`)
		if kind == "List" || strings.HasSuffix(kind, "List") {
			return ""
		}
		return kind
	}
	return ""
}

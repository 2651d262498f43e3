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
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// Limits bound a build. MaxObjects, MaxBytes and MaxDepth must be
// positive; every field below 1<<60.
type Limits struct {
	// MaxObjects bounds the objects the build produces, counted with
	// multiplicity: a base used twice counts twice, at every level.
	MaxObjects int64
	// MaxBytes bounds the YAML the build produces. Before the build, the
	// walk counts the resource files and the files, literals and env files
	// of generators it uses, each as often as it is used; the build is then
	// stopped when its output passes the bound.
	MaxBytes int64
	// MaxDepth bounds how deeply kustomizations nest (1: no bases).
	MaxDepth int
	// MaxMemory bounds the heap of the process the build runs in; 0 is
	// DefaultMaxMemory.
	MaxMemory int64
}

// DefaultMaxMemory leaves room for the largest public install manifests
// under an overlay: kustomize holds about 150 bytes for each byte of dense
// YAML it builds (Argo CD's 2 MiB install peaks at 148 MiB).
const DefaultMaxMemory = 256 << 20

func (l Limits) validate() error {
	const most = 1 << 60
	if l.MaxObjects <= 0 || l.MaxBytes <= 0 || l.MaxDepth <= 0 || l.MaxMemory < 0 ||
		l.MaxObjects >= most || l.MaxBytes >= most || l.MaxMemory >= most {
		return fmt.Errorf("every limit must be positive and below 2^60: %+v", l)
	}
	return nil
}

func (l Limits) memory() int64 {
	if l.MaxMemory == 0 {
		return DefaultMaxMemory
	}
	return l.MaxMemory
}

// cost is what building a kustomization would produce and how deep its
// kustomizations nest.
type cost struct {
	objects, bytes int64
	height         int
	// kinds count the objects by kind, for the patches that target a
	// kind; "" counts those whose kind the walk does not tell (a List, JSON).
	kinds map[string]int64
}

// add counts what other produces into c.
func (c *cost) add(other cost) {
	c.objects += other.objects
	c.bytes += other.bytes
	for kind, n := range other.kinds {
		c.addKind(kind, n)
	}
}

func (c *cost) addKind(kind string, n int64) {
	if c.kinds == nil {
		c.kinds = map[string]int64{}
	}
	c.kinds[kind] += n
}

// walker walks a graph of kustomizations as kustomize would build it,
// without building it, each directory once.
type walker struct {
	files    *artifact.Tree
	limits   Limits
	costs    map[string]cost
	visiting map[string]bool
}

func newWalker(files *artifact.Tree, limits Limits) *walker {
	return &walker{files: files, limits: limits, costs: map[string]cost{}, visiting: map[string]bool{}}
}

// kustomizationFile finds the kustomization file of dir, "" if none.
func kustomizationFile(files *artifact.Tree, dir string) (string, error) {
	var found []string
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if _, ok := files.File(path.Join(dir, name)); ok {
			found = append(found, path.Join(dir, name))
		}
	}
	if len(found) > 1 {
		return "", fmt.Errorf("directory %q holds more than one kustomization file: %v", dir, found)
	}
	if len(found) == 0 {
		return "", nil
	}
	return found[0], nil
}

// walk checks the kustomization of dir and everything it uses, reached at
// depth, and returns what building it would produce. pluginConfigs says
// that its resources are the configs of generators or transformers.
func (w *walker) walk(dir string, depth int, pluginConfigs bool) (cost, error) {
	key := fmt.Sprintf("%t:%s", pluginConfigs, dir)
	if c, ok := w.costs[key]; ok {
		return c, w.check(dir, depth, c)
	}
	if w.visiting[dir] {
		return cost{}, fmt.Errorf("kustomization %q uses itself", dir)
	}
	if depth > w.limits.MaxDepth {
		return cost{}, fmt.Errorf("kustomization %q: nested deeper than the limit of %d", dir, w.limits.MaxDepth)
	}
	w.visiting[dir] = true
	defer delete(w.visiting, dir)
	file, err := kustomizationFile(w.files, dir)
	if err != nil {
		return cost{}, err
	}
	if file == "" {
		return cost{}, fmt.Errorf("directory %q is used as a kustomization but holds no kustomization file", dir)
	}
	k, err := w.parse(dir, file)
	if err != nil {
		return cost{}, err
	}
	c, err := w.kustomizationCost(dir, file, k, depth, pluginConfigs)
	if err != nil {
		return cost{}, err
	}
	w.costs[key] = c
	return c, w.check(dir, depth, c)
}

func (w *walker) check(dir string, depth int, c cost) error {
	switch {
	case depth+c.height-1 > w.limits.MaxDepth:
		return fmt.Errorf("kustomization %q: nested deeper than the limit of %d", dir, w.limits.MaxDepth)
	case c.objects > w.limits.MaxObjects:
		return &LimitError{fmt.Sprintf("%s would produce more than %d objects", kustomizationName(dir), w.limits.MaxObjects)}
	case c.bytes > w.limits.MaxBytes:
		return &LimitError{fmt.Sprintf("%s would produce more than %s", kustomizationName(dir), text.Bytes(w.limits.MaxBytes))}
	}
	return nil
}

// kustomizationName names the kustomization of dir in messages.
func kustomizationName(dir string) string {
	if dir == "" {
		return "the root kustomization"
	}
	return fmt.Sprintf("kustomization %q", dir)
}

// parse reads a kustomization as kustomize does, then checks every path it
// names and refuses what this build does not do.
func (w *walker) parse(dir, file string) (*types.Kustomization, error) {
	data, _ := w.files.File(file)
	k := &types.Kustomization{}
	if err := k.Unmarshal(data); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	k.FixKustomization()
	if len(k.HelmCharts) > 0 || k.HelmGlobals != nil {
		return nil, fmt.Errorf("%s: helm charts are not allowed", file)
	}
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := checkPathValues(dir, raw, file); err != nil {
		return nil, err
	}
	return k, nil
}

func (w *walker) kustomizationCost(dir, file string, k *types.Kustomization, depth int, pluginConfigs bool) (cost, error) {
	total := cost{height: 1}
	for _, g := range k.ConfigMapGenerator {
		total.add(cost{objects: 1, bytes: w.generated(dir, g.KvPairSources, false), kinds: map[string]int64{"ConfigMap": 1}})
	}
	for _, g := range k.SecretGenerator {
		total.add(cost{objects: 1, bytes: w.generated(dir, g.KvPairSources, true), kinds: map[string]int64{"Secret": 1}})
	}
	if err := w.check(dir, depth, total); err != nil {
		return cost{}, err
	}
	for _, group := range []struct {
		field   string
		refs    []string
		configs bool
		// counts: its entries produce objects; transforms: they change them.
		counts, transforms bool
	}{
		{"resources", k.Resources, pluginConfigs, true, false},
		{"components", k.Components, pluginConfigs, true, false},
		{"generators", k.Generators, true, true, false},
		{"transformers", k.Transformers, true, false, true},
		{"validators", k.Validators, true, false, false},
	} {
		for i, ref := range group.refs {
			where := fmt.Sprintf("%s %s[%d]", file, group.field, i)
			c, err := w.reference(dir, ref, where, depth, group.configs)
			if err != nil {
				return cost{}, err
			}
			if group.counts {
				total.add(c)
			} else if group.transforms {
				total.bytes += w.transformed(dir, ref, total)
			}
			total.height = max(total.height, c.height+1)
			if err := w.check(dir, depth, total); err != nil {
				return cost{}, err
			}
		}
	}
	total.bytes += w.patched(dir, k, total)
	return total, w.check(dir, depth, total)
}

// reference is what one entry of resources, components, generators,
// transformers or validators would produce: a file's documents, or another
// kustomization's output. Inline plugin configs are checked in place.
func (w *walker) reference(dir, ref, where string, depth int, pluginConfigs bool) (cost, error) {
	if pluginConfigs && bytes.ContainsRune([]byte(ref), '\n') {
		return w.pluginConfigs(dir, []byte(ref), where)
	}
	target, err := checkLocalPath(dir, ref, where)
	if err != nil {
		return cost{}, err
	}
	if data, ok := w.files.File(target); ok {
		if pluginConfigs {
			return w.pluginConfigs(dir, data, target)
		}
		c := cost{bytes: int64(len(data))}
		err := eachDocument(data, target, func(doc []byte) error {
			c.objects++
			c.addKind(documentKind(doc), 1)
			return nil
		})
		return c, err
	}
	if w.files.IsDir(target) {
		return w.walk(target, depth+1, pluginConfigs)
	}
	return cost{}, fmt.Errorf("%s: %q is not in the artifact", where, ref)
}

func eachDocument(data []byte, where string, fn func([]byte) error) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s document %d: %w", where, i, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		if err := fn(doc); err != nil {
			return fmt.Errorf("%s document %d: %w", where, i, err)
		}
	}
}

func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) > 0 && trimmed[0] != '#' && !bytes.Equal(trimmed, []byte("---")) {
			out = append(out, line...)
		}
	}
	return out
}

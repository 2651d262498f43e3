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

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/yaml"
)

// builtinPlugins are the kinds of the generators and transformers compiled
// into kustomize, but for helm charts, which this build does not inflate.
var builtinPlugins = func() map[string]bool {
	names := map[string]bool{}
	for _, name := range krusty.GetBuiltinPluginNames() {
		names[name] = true
	}
	delete(names, "HelmChartInflationGenerator")
	return names
}()

// functionAnnotations mark a config as one for a KRM function, run as a
// container or an executable.
var functionAnnotations = []string{"config.kubernetes.io/function", "config.k8s.io/function"}

// pluginConfigs checks the configs of generators, transformers or
// validators: each must be of a builtin kind (no exec, container or Go
// plugin), and name no remote or outside path. It counts the configs, as
// each generator config produces about one object, and what generator
// configs produce. dir is the directory of the kustomization that uses
// them, which their paths are relative to.
func (w *walker) pluginConfigs(dir string, data []byte, where string) (cost, error) {
	c := cost{bytes: int64(len(data))}
	err := eachDocument(data, where, func(doc []byte) error {
		c.objects++
		config, err := checkPluginConfig(dir, doc, where)
		if err != nil {
			return err
		}
		kind, bytes := w.generatedByConfig(dir, config)
		c.addKind(kind, 1)
		c.bytes += bytes
		return nil
	})
	return c, err
}

func checkPluginConfig(dir string, doc []byte, where string) (map[string]any, error) {
	var config map[string]any
	if err := yaml.Unmarshal(doc, &config); err != nil {
		return nil, fmt.Errorf("malformed plugin config: %w", err)
	}
	kind, _ := config["kind"].(string)
	for _, key := range functionAnnotations {
		if _, ok := annotations(config)[key]; ok {
			return nil, fmt.Errorf("plugin %q is a KRM function (%s): exec, container and Go plugins are not allowed", kind, key)
		}
	}
	if !builtinPlugins[kind] {
		return nil, fmt.Errorf("plugin kind %q is not a builtin: exec, container and Go plugins and helm charts are not allowed", kind)
	}
	return config, checkPathValues(dir, config, where)
}

func annotations(obj map[string]any) map[string]any {
	metadata, _ := obj["metadata"].(map[string]any)
	a, _ := metadata["annotations"].(map[string]any)
	return a
}

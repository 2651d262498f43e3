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

// Package release writes what people install, from one kustomize output:
// dist/install.yaml (config/default with the manager's image) and a Helm
// chart whose templates are that output, with values for what the install
// lets an admin choose (the image, replicas, resources, the manager's flags)
// and for the optional components of config/components. `make
// build-installer` runs it (hack/build-installer); test/helm lints the chart
// and checks that it renders what kustomize builds.
package release

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

const (
	// ImageRepository is the manager's image without its tag: config/default
	// names it with the tag of its release, which a release replaces with
	// its own.
	ImageRepository = "ghcr.io/applyset-operator/applyset-operator"
	// InstallNamespace is the namespace config/default installs into; the
	// chart installs into the release's namespace instead.
	InstallNamespace = "applyset-operator-system"
	// managerContainer is the container of the manager in its Deployments.
	managerContainer = "manager"
)

// Component is an optional component of config/components, which the chart
// turns on with components.<Key>.enabled.
type Component struct {
	// Key names it in the chart's values.
	Key string
	// Dir is its directory, relative to the checkout.
	Dir string
	// Doc says, in values.yaml, what it does.
	Doc string
}

// Components are the optional components the chart offers.
var Components = []Component{
	{Key: "replicas", Dir: "config/components/replicas",
		Doc: "active-active replicas: every replica reconciles a share of the sets (--replica-sharding)"},
	{Key: "secondShard", Dir: "config/components/second-shard",
		Doc: "a second Deployment for the sets labelled sharding.fluxcd.io/key: shard1 (Flux's sharding)"},
	{Key: "policyBackend", Dir: "config/components/policy-backend",
		Doc: "the rights of the admission-policy backend of feature gates: as much as cluster-admin (docs/security.md)"},
	{Key: "explainNotes", Dir: "config/components/explain-notes",
		Doc: "patch on every CRD, to write gate notes where a CRD asks for them (kubectl explain): a CRD's patch can add a conversion webhook (docs/security.md)"},
	{Key: "clusterWriter", Dir: "config/components/cluster-writer",
		Doc: "the right to write any object, for --single-tenant, --repair-tooling and --orphan-policy=delete (docs/security.md)"},
}

// Build builds config/default of the checkout at root, with the components
// whose keys are given, as `kubectl apply -k` builds it.
func Build(root string, components ...string) ([]*unstructured.Unstructured, error) {
	// Kustomize reads no absolute path, so the overlay lives in the checkout,
	// in bin/, which git ignores.
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(bin, "release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	kustomization := "resources:\n- ../../config/default\n"
	if len(components) > 0 {
		kustomization += "components:\n"
	}
	for _, key := range components {
		c, ok := component(key)
		if !ok {
			return nil, fmt.Errorf("no component %q", key)
		}
		kustomization += "- ../../" + c.Dir + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		return nil, err
	}
	// Kustomize's legacy order, as kubectl kustomize emits it: Namespaces and
	// CRDs first, so that kubectl apply -f creates what the rest needs first.
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy
	resources, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("building config/default with %v: %w", components, err)
	}
	return Objects(resources)
}

// Objects are the resources of a kustomize build, in its order, as a client
// reads them.
func Objects(resources resmap.ResMap) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	for _, res := range resources.Resources() {
		// Through JSON, so that numbers are int64 and float64 as a client reads them.
		data, err := res.MarshalJSON()
		if err != nil {
			return nil, err
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

func component(key string) (Component, bool) {
	i := slices.IndexFunc(Components, func(c Component) bool { return c.Key == key })
	if i < 0 {
		return Component{}, false
	}
	return Components[i], true
}

// SetImage gives the manager's containers the image, as kustomize's images
// field would.
func SetImage(objs []*unstructured.Unstructured, image string) error {
	for _, obj := range objs {
		if !isManager(obj) {
			continue
		}
		containers, _, err := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		if err != nil {
			return err
		}
		for _, c := range containers {
			if c := c.(map[string]any); c["name"] == managerContainer && runsOurs(c) {
				c["image"] = image
			}
		}
		if err := unstructured.SetNestedSlice(obj.Object, containers, "spec", "template", "spec", "containers"); err != nil {
			return err
		}
	}
	return nil
}

// isManager says whether obj is a Deployment of the manager: one whose
// manager container runs the manager's image.
func isManager(obj *unstructured.Unstructured) bool {
	if obj.GetKind() != "Deployment" {
		return false
	}
	c, _ := managerOf(obj)
	return c != nil && runsOurs(c)
}

// runsOurs says whether a container runs the manager's image, at any tag.
func runsOurs(container map[string]any) bool {
	image, _ := container["image"].(string)
	repository, _, _ := splitImage(image)
	return repository == ImageRepository
}

// managerOf returns the manager container of a Deployment and its index.
func managerOf(obj *unstructured.Unstructured) (map[string]any, int) {
	containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
	for i, c := range containers {
		if c, ok := c.(map[string]any); ok && c["name"] == managerContainer {
			return c, i
		}
	}
	return nil, -1
}

// ManagerImage is the image the manager's Deployment runs in manifest, a
// multi-document YAML file such as install.yaml.
func ManagerImage(manifest []byte) (string, error) {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(manifest), 4096)
	for {
		obj := &unstructured.Unstructured{}
		err := decoder.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return "", errors.New("no Deployment runs the manager's image")
		}
		if err != nil {
			return "", err
		}
		if isManager(obj) {
			c, _ := managerOf(obj)
			return c["image"].(string), nil // isManager read it as a string
		}
	}
}

// Installer returns dist/install.yaml: config/default with the manager's
// image, as one multi-document YAML file that `kubectl apply --server-side
// -f` installs.
func Installer(root, image string) ([]byte, error) {
	objs, err := Build(root)
	if err != nil {
		return nil, err
	}
	if err := SetImage(objs, image); err != nil {
		return nil, err
	}
	return marshal(objs)
}

// marshal writes objects as a multi-document YAML stream.
func marshal(objs []*unstructured.Unstructured) ([]byte, error) {
	var b bytes.Buffer
	for i, obj := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		data, err := yaml.Marshal(obj.Object)
		if err != nil {
			return nil, err
		}
		b.Write(data)
	}
	return b.Bytes(), nil
}

// splitImage splits an image reference into repository, tag and digest.
func splitImage(image string) (repository, tag, digest string) {
	repository, digest, _ = strings.Cut(image, "@")
	if i := strings.LastIndex(repository, ":"); i > strings.LastIndex(repository, "/") {
		repository, tag = repository[:i], repository[i+1:]
	}
	return repository, tag, digest
}

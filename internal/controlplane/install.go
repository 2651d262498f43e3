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

package controlplane

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/applyset-operator/applyset-operator/internal/release"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// installManifests creates the objects of the YAML files in dir, leaving out
// kustomize's own files, and the namespaces they name: the ServiceAccount
// policy's parameters live in the operator's namespace, as they install.
func installManifests(ctx context.Context, cfg *rest.Config, dir string) error {
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	for _, file := range files {
		if strings.HasPrefix(filepath.Base(file), "kustomiz") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		decoder := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return fmt.Errorf("decoding %s: %w", file, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			if ns := obj.GetNamespace(); ns != "" {
				namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
				if err := c.Create(ctx, namespace); client.IgnoreAlreadyExists(err) != nil {
					return fmt.Errorf("creating namespace %s for %s %s from %s: %w", ns, obj.GetKind(), obj.GetName(), file, err)
				}
			}
			if err := c.Create(ctx, obj); err != nil {
				return fmt.Errorf("installing %s %s from %s: %w", obj.GetKind(), obj.GetName(), file, err)
			}
		}
	}
	return nil
}

// shipped says whether an object of the install (config/default, built as
// `kubectl apply -k` builds it) is one the operator needs to run but may not
// create, so that a control plane without the install has it too: the two
// webhook configurations the operator fills in, and the identity of the
// feature gates' write probe with its namespace, the operator's.
func shipped(kind, name string) bool {
	switch kind {
	case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", namespaceKind:
		return true
	case "Role", "RoleBinding":
		return name == "applyset-operator-featuregate-probe"
	}
	return false
}

// installTree builds config/default as `kubectl apply -k` does and returns its
// objects.
func installTree(root string) ([]*unstructured.Unstructured, error) {
	return Build(filepath.Join(root, "config", "default"))
}

// Build builds the kustomization in dir as `kubectl apply -k` does and
// returns its objects.
func Build(dir string) ([]*unstructured.Unstructured, error) {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", dir, err)
	}
	return release.Objects(resources)
}

// namespaceKind is the kind of the objects installed first.
const namespaceKind = "Namespace"

// installShipped creates the objects of the install that shipped names.
func installShipped(ctx context.Context, cfg *rest.Config, root string) error {
	objs, err := installTree(root)
	if err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	// Namespaces first, before what lives in them.
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int {
		return cmp.Compare(boolInt(a.GetKind() != namespaceKind), boolInt(b.GetKind() != namespaceKind))
	})
	for _, obj := range objs {
		if !shipped(obj.GetKind(), obj.GetName()) {
			continue
		}
		// The namespace may be there already: config/policy's parameters live in it.
		if err := c.Create(ctx, obj); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("installing %s %s from config/default: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

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

// Command fluxssa applies and prunes a set of objects the way Flux's
// kustomize-controller does, with Flux's engine (github.com/fluxcd/pkg/ssa):
// owner labels on every object, ApplyAllStaged, then the deletion of the
// objects of the previous inventory that the new one lacks. The benchmarks
// run it beside the operator and kubectl, on the same API server. It lives
// in its own module so that the operator does not depend on Flux.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func main() {
	var kubeconfig, file, namespace, inventory, name string
	flag.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of the cluster")
	flag.StringVar(&file, "f", "", "multi-document YAML of the objects")
	flag.StringVar(&namespace, "n", "default", "namespace of namespaced objects that name none")
	flag.StringVar(&inventory, "inventory", "", "file that keeps the applied objects between runs, as a Kustomization's status does")
	flag.StringVar(&name, "name", "load", "the owner's name, as a Kustomization's")
	flag.Parse()
	start := time.Now()
	applied, pruned, err := run(context.Background(), kubeconfig, file, namespace, inventory, name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fluxssa:", err)
		os.Exit(1)
	}
	fmt.Printf("applied %d, pruned %d in %s\n", applied, pruned, time.Since(start))
}

func run(ctx context.Context, kubeconfig, file, namespace, inventory, name string) (applied, pruned int, err error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return 0, 0, err
	}
	// kustomize-controller's defaults.
	cfg.QPS, cfg.Burst = 50, 300
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return 0, 0, err
	}
	objects, err := read(file, namespace)
	if err != nil {
		return 0, 0, err
	}
	rm := ssa.NewResourceManager(c, nil, ssa.Owner{Field: "kustomize-controller", Group: "kustomize.toolkit.fluxcd.io"})
	rm.SetOwnerLabels(objects, name, namespace)
	opts := ssa.DefaultApplyOptions()
	changes, err := rm.ApplyAllStaged(ctx, objects, opts)
	if err != nil {
		return 0, 0, err
	}
	stale, err := staleObjects(inventory, objects)
	if err != nil {
		return 0, 0, err
	}
	if len(stale) > 0 {
		if _, err := rm.DeleteAll(ctx, stale, ssa.DefaultDeleteOptions()); err != nil {
			return 0, 0, err
		}
	}
	return len(changes.Entries), len(stale), writeInventory(inventory, objects)
}

func read(file, namespace string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	objects, err := utils.ReadObjects(bufio.NewReader(f))
	if err != nil {
		return nil, err
	}
	for _, o := range objects {
		if o.GetNamespace() == "" {
			o.SetNamespace(namespace)
		}
	}
	return objects, nil
}

// entry is one object of the inventory.
type entry struct {
	APIVersion, Kind, Namespace, Name string
}

func entryOf(o *unstructured.Unstructured) entry {
	return entry{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName()}
}

// staleObjects are the objects of the previous inventory that objects lack.
func staleObjects(inventory string, objects []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(inventory)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var previous []entry
	if err := json.Unmarshal(data, &previous); err != nil {
		return nil, fmt.Errorf("reading the inventory: %w", err)
	}
	current := map[entry]bool{}
	for _, o := range objects {
		current[entryOf(o)] = true
	}
	var stale []*unstructured.Unstructured
	for _, e := range previous {
		if !current[e] {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion(e.APIVersion)
			u.SetKind(e.Kind)
			u.SetNamespace(e.Namespace)
			u.SetName(e.Name)
			stale = append(stale, u)
		}
	}
	return stale, nil
}

func writeInventory(inventory string, objects []*unstructured.Unstructured) error {
	entries := make([]entry, 0, len(objects))
	for _, o := range objects {
		entries = append(entries, entryOf(o))
	}
	data, err := json.Marshal(entries)
	if err != nil {
		return err
	}
	return os.WriteFile(inventory, data, 0o600)
}

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

package release

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// install.yaml is applied with kubectl apply -f, which creates objects in
// the file's order: the Namespace and the CRDs come before what needs them,
// and the manager runs the image given.
func TestInstallerOrderAndImage(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	data, err := Installer(root, "registry.example.com/op:v1")
	if err != nil {
		t.Fatal(err)
	}
	decoder := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var kinds []string
	images := 0
	for {
		obj := &unstructured.Unstructured{}
		err := decoder.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, obj.GetKind())
		if obj.GetKind() == "Deployment" {
			c, _ := managerOf(obj)
			if c["image"] != "registry.example.com/op:v1" {
				t.Errorf("the manager runs %v", c["image"])
			}
			images++
		}
	}
	if images != 1 {
		t.Errorf("%d Deployments of the manager, want 1", images)
	}
	if len(kinds) == 0 || kinds[0] != kindNamespace {
		t.Fatalf("install.yaml begins with %v, not the Namespace", kinds)
	}
	seenOther := false
	for _, kind := range kinds[1:] {
		switch {
		case kind == kindCRD && seenOther:
			t.Errorf("a CRD comes after objects that are neither Namespaces nor CRDs: %v", kinds)
		case kind != kindCRD && kind != kindNamespace:
			seenOther = true
		}
	}
}

func TestManagerImage(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	image := ImageRepository + ":v1.2.3@sha256:" + strings.Repeat("ab", 32)
	data, err := Installer(root, image)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ManagerImage(data); err != nil || got != image {
		t.Errorf("ManagerImage = %q, %v; want %s", got, err, image)
	}
	other, err := Installer(root, "registry.example.com/op:v1")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ManagerImage(other); err == nil {
		t.Errorf("ManagerImage of an install of another image = %q, want an error", got)
	}
	if _, err := ManagerImage([]byte("kind: [")); err == nil {
		t.Error("ManagerImage of YAML it cannot read: no error")
	}
}

func TestSplitImage(t *testing.T) {
	for image, want := range map[string][3]string{
		"applyset-operator:latest":                 {"applyset-operator", "latest", ""},
		"registry.example.com:5000/team/op":        {"registry.example.com:5000/team/op", "", ""},
		"registry.example.com:5000/team/op:v1.2.3": {"registry.example.com:5000/team/op", "v1.2.3", ""},
		"registry.example.com/op:v1@sha256:abc":    {"registry.example.com/op", "v1", "sha256:abc"},
		"registry.example.com/op@sha256:abc":       {"registry.example.com/op", "", "sha256:abc"},
	} {
		repository, tag, digest := splitImage(image)
		if got := [3]string{repository, tag, digest}; got != want {
			t.Errorf("splitImage(%q) = %v, want %v", image, got, want)
		}
	}
}

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

package corpus

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// compressed is the set's manifests as kept in testdata: gzip.
func compressed(name string) []byte {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".yaml.gz"))
	Expect(err).NotTo(HaveOccurred())
	return data
}

// manifest is the set's manifests as published.
func manifest(name string) []byte {
	GinkgoHelper()
	zr, err := gzip.NewReader(bytes.NewReader(compressed(name)))
	Expect(err).NotTo(HaveOccurred())
	data, err := io.ReadAll(zr)
	Expect(err).NotTo(HaveOccurred())
	return data
}

// declaredObjects reads the set's objects as kubectl reads them: every
// non-empty document, in the set's namespace when namespaced and naming
// none, with no namespace when cluster-scoped. The kinds are looked up on
// the cluster kubectl installed the set into.
func declaredObjects(c corpusSet) []*unstructured.Unstructured {
	GinkgoHelper()
	return declaredIn(manifest(c.name), c.namespace)
}

// declaredIn reads the objects of a stream of manifests as kubectl reads
// them with -n namespace.
func declaredIn(manifests []byte, namespace string) []*unstructured.Unstructured {
	GinkgoHelper()
	mapper := byKubectl.Client.RESTMapper()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifests)))
	var objs []*unstructured.Unstructured
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		Expect(err).NotTo(HaveOccurred())
		obj := &unstructured.Unstructured{}
		Expect(utilyaml.Unmarshal(doc, &obj.Object)).To(Succeed())
		if len(obj.Object) == 0 {
			continue
		}
		mapping, err := mapper.RESTMapping(obj.GroupVersionKind().GroupKind(), obj.GroupVersionKind().Version)
		Expect(err).NotTo(HaveOccurred())
		switch {
		case mapping.Scope.Name() != meta.RESTScopeNameNamespace:
			obj.SetNamespace("")
		case obj.GetNamespace() == "":
			obj.SetNamespace(namespace)
		}
		objs = append(objs, obj)
	}
}

// reconciles counts the set reconciles that ended without an error.
func reconciles() float64 {
	n, err := testenv.Reconciles("applyset")
	Expect(err).NotTo(HaveOccurred())
	return n
}

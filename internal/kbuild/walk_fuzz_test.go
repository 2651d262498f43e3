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
	"strings"
	"testing"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
)

func FuzzWalk(f *testing.F) {
	f.Add("resources: [base, cm.yaml]\nnamePrefix: a-\n", "resources: [cm.yaml]\n")
	f.Add("resources: [base]\ntransformers: [base/cm.yaml]\n", "generators:\n- |\n  kind: ConfigMapGenerator\n  metadata: {name: x}\n")
	f.Add("patches:\n- path: https://example.com/x\n", "")
	f.Add("resources: [base, base]\ncomponents: [base]\n", "resources: [../base]\n")
	f.Add("configMapGenerator:\n- name: a\n  files: [k=cm.yaml]\n", "bases: [../../x]\n")
	f.Fuzz(func(t *testing.T, root, base string) {
		files, err := artifact.NewTree(map[string][]byte{
			"kustomization.yaml":      []byte(root),
			"cm.yaml":                 []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nkind: ConfigMap\n"),
			"base/kustomization.yaml": []byte(base),
			"base/cm.yaml":            []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"),
		})
		if err != nil {
			t.Fatal(err)
		}
		limits := Limits{MaxObjects: 50, MaxBytes: 4096, MaxDepth: 4}
		c, err := newWalker(files, limits).walk("", 1, false)
		if err != nil {
			return
		}
		if c.objects > limits.MaxObjects || c.bytes > limits.MaxBytes || c.height > limits.MaxDepth {
			t.Fatalf("a walk past the limits was accepted: %+v", c)
		}
	})
}

func BenchmarkWalkBillionLaughs(b *testing.B) {
	files := tree(b, laughs(9, 10))
	limits := Limits{MaxObjects: 1 << 40, MaxBytes: 1 << 50, MaxDepth: 100}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := newWalker(files, limits).walk("l9", 1, false); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzDocumentKind(f *testing.F) {
	for _, seed := range []string{"kind: ConfigMap\n", "apiVersion: v1\nkind: 'X' # c\n", "kind: List\n", "kind:\n", "{}"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if kind := documentKind([]byte(doc)); kind != "" && !strings.Contains(doc, kind) {
			t.Fatalf("documentKind(%q) = %q, which the document does not hold", doc, kind)
		}
	})
}

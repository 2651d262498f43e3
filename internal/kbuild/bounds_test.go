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
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hostileBuilds are small artifacts whose builds multiply what they read.
var hostileBuilds = map[string]func(size int) map[string]string{
	// One file named many times by one generator: kustomize copies it each time.
	"generator files": func(size int) map[string]string {
		return map[string]string{
			"big.txt":            strings.Repeat("x", size),
			"kustomization.yaml": "configMapGenerator:\n- name: x\n  files: [" + numbered("k%d=big.txt", 40) + "]\n",
		}
	},
	// The same, through a generator config of generators:.
	"generator configs": func(size int) map[string]string {
		return map[string]string{
			"big.txt":            strings.Repeat("x", size),
			"gen.yaml":           "apiVersion: builtin\nkind: SecretGenerator\nmetadata: {name: x}\nfiles: [" + numbered("k%d=big.txt", 40) + "]\n",
			"kustomization.yaml": "generators: [gen.yaml]\n",
		}
	},
	// A patch that adds a large annotation to every one of 200 objects.
	"patch targets": func(size int) map[string]string {
		files := map[string]string{"kustomization.yaml": "resources:\n" + numbered("- cm%d.yaml\n", 200) +
			"patches:\n- target: {kind: ConfigMap}\n  patch: |\n    - {op: add, path: /metadata/annotations, value: {a: " +
			strings.Repeat("y", size/8) + "}}\n"}
		for i := range 200 {
			files[fmt.Sprintf("cm%d.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm%d\n", i)
		}
		return files
	},
}

func numbered(format string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(format, i)
	}
	if strings.HasSuffix(format, "\n") {
		return strings.Join(parts, "")
	}
	return strings.Join(parts, ", ")
}

func TestReadBoundsWhatTheBuildProduces(t *testing.T) {
	const bound = 1 << 20
	for name, hostile := range hostileBuilds {
		t.Run(name, func(t *testing.T) {
			limits := Limits{MaxObjects: 1000, MaxBytes: bound, MaxDepth: 4}
			files := tree(t, hostile(64<<10))
			if files.Size() > bound {
				t.Fatalf("the artifact holds %d bytes: not a small one", files.Size())
			}
			_, err := Read(t.Context(), files, "", limits)
			var limit *LimitError
			if !errors.As(err, &limit) {
				t.Fatalf("got %v, want a *LimitError", err)
			}
			wantErr(t, err, "would produce more than 1 MiB")
			// The same artifact within a bound it fits builds.
			limits.MaxBytes = 64 << 20
			if _, err := Read(t.Context(), files, "", limits); err != nil {
				t.Fatalf("within its bound: %v", err)
			}
		})
	}
}

// doubling is a build whose output doubles with each of copies JSON 6902
// copy operations: no walk can tell its size without running it.
func doubling(copies int) map[string]string {
	var ops strings.Builder
	for i := range copies {
		fmt.Fprintf(&ops, "    - {op: copy, from: /data, path: /data/c%d}\n", i)
	}
	return map[string]string{
		"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: " + strings.Repeat("z", 64<<10) + "\n",
		"kustomization.yaml": "resources: [cm.yaml]\npatches:\n- target: {kind: ConfigMap}\n  patch: |\n" + ops.String(),
	}
}

func TestReadStopsABuildAtItsMemory(t *testing.T) {
	limits := Limits{MaxObjects: 10, MaxBytes: 1 << 40, MaxDepth: 2, MaxMemory: 64 << 20}
	_, err := Read(t.Context(), tree(t, doubling(16)), "", limits)
	var limit *LimitError
	if !errors.As(err, &limit) {
		t.Fatalf("got %v, want a *LimitError", err)
	}
	wantErr(t, err, "building kustomization.yaml: the build needs more than 64 MiB of memory")

	docs, err := Read(t.Context(), tree(t, doubling(2)), "", limits)
	if err != nil {
		t.Fatalf("two copies: %v", err)
	}
	if n := strings.Count(string(docs[0].Data), strings.Repeat("z", 64<<10)); n != 4 {
		t.Errorf("two copies hold the value %d times, want 4", n)
	}
}

func TestReadEndsABuildWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := Read(ctx, tree(t, doubling(16)), "", Limits{MaxObjects: 10, MaxBytes: 1 << 40, MaxDepth: 2, MaxMemory: 1 << 40})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the context's error", err)
	}
}

func TestReadRefusesTooManyBuiltObjects(t *testing.T) {
	// A generator counts as one object before the build; a List resource as
	// one too, though it stands for its items.
	files := map[string]string{
		"list.yaml":          "apiVersion: v1\nkind: List\nitems:\n" + numbered("- {apiVersion: v1, kind: ConfigMap, metadata: {name: c%d}}\n", 20),
		"kustomization.yaml": "resources: [list.yaml]\n",
	}
	_, err := Read(t.Context(), tree(t, files), "", Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxDepth: 2})
	wantErr(t, err, "the build would produce more than 10 objects")
}

// TestChildReachesNoNetwork gives a child a kustomization naming a remote
// resource, which the walk would refuse, and expects the child's build to
// fail without reaching the server.
func TestChildReachesNoNetwork(t *testing.T) {
	var reached atomic.Bool
	server := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Store(true) }))
	defer server.Close()
	files := map[string]string{"kustomization.yaml": "resources: [cm.yaml]\n", "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"}
	// The walk refuses the URL; build the tree directly to see what the child would do.
	files["kustomization.yaml"] = "resources:\n- " + server.URL + "/cm.yaml\n"
	_, err := isolate(t.Context(), tree(t, files), "", "kustomization.yaml", Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxDepth: 2})
	if err == nil || reached.Load() {
		t.Fatalf("the child reached the server (error %v)", err)
	}
}

// BenchmarkReadHostile gives the time and the memory this process
// allocates (run with -benchmem) to refuse each hostile build within the
// default bounds of a set: 16 MiB of output, 256 MiB of memory in the
// build's own process. The first is the artifact that allocated 9.6 GiB
// before builds were bounded by what they produce.
func BenchmarkReadHostile(b *testing.B) {
	limits := Limits{MaxObjects: 5000, MaxBytes: 16 << 20, MaxDepth: 16}
	cases := []struct {
		name  string
		files map[string]string
	}{
		{"generator-4MiB-file-used-40-times", hostileBuilds["generator files"](4 << 20)},
		{"patch-of-400KiB-on-200-objects", hostileBuilds["patch targets"](3200 << 10)},
		{"copy-doubling-16-times", doubling(16)},
	}
	for _, c := range cases {
		files := tree(b, c.files)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var limit *LimitError
				if _, err := Read(b.Context(), files, "", limits); !errors.As(err, &limit) {
					b.Fatalf("got %v, want a refusal at a limit", err)
				}
			}
		})
	}
}

func TestReadStopsABuildAtItsOutput(t *testing.T) {
	// Six copies make 4 MiB of the 64 KiB value: no walk can tell, the build's output bound does.
	_, err := Read(t.Context(), tree(t, doubling(6)), "", Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxDepth: 2})
	var limit *LimitError
	if !errors.As(err, &limit) {
		t.Fatalf("got %v, want a *LimitError", err)
	}
	wantErr(t, err, "building kustomization.yaml: the build would produce more than 1 MiB")
}

func TestPatchesCountTheObjectsTheyTarget(t *testing.T) {
	big := strings.Repeat("v", 8<<10)
	files := map[string]string{"deployment.yaml": deployment}
	var resources []string
	for i := range 200 {
		files[fmt.Sprintf("cm%d.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm%d\n", i)
		resources = append(resources, fmt.Sprintf("cm%d.yaml", i))
	}
	resources = append(resources, "deployment.yaml")
	limits := Limits{MaxObjects: 1000, MaxBytes: 1 << 20, MaxDepth: 2}
	for _, tt := range []struct {
		name    string
		patches string
		refused bool
	}{
		{name: "a patch of the one Deployment", patches: "patches:\n- target: {kind: Deployment}\n  patch: |\n    - {op: add, path: /metadata/annotations, value: {a: " + big + "}}\n"},
		{name: "a strategic merge patch naming its object", patches: "patchesStrategicMerge:\n- |\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app, annotations: {a: " + big + "}}\n"},
		{name: "the same patch of every ConfigMap", refused: true,
			patches: "patches:\n- target: {kind: ConfigMap}\n  patch: |\n    - {op: add, path: /metadata/annotations, value: {a: " + big + "}}\n"},
		{name: "a pattern of kinds", refused: true,
			patches: "patches:\n- target: {kind: Config.*}\n  patch: |\n    - {op: add, path: /metadata/annotations, value: {a: " + big + "}}\n"},
		{name: "a common annotation on every object", refused: true, patches: "commonAnnotations: {a: " + big + "}\n"},
		{name: "a patch transformer of every ConfigMap", refused: true, patches: "transformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n" +
			"  metadata: {name: p}\n  target: {kind: ConfigMap}\n  patch: '[{\"op\": \"add\", \"path\": \"/data\", \"value\": {\"a\": \"" + big + "\"}}]'\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files["kustomization.yaml"] = "resources: [" + strings.Join(resources, ", ") + "]\n" + tt.patches
			c, err := newWalker(tree(t, files), limits).walk("", 1, false)
			if refused := err != nil; refused != tt.refused {
				t.Fatalf("refused: %v (counted %d bytes), want refused %t", err, c.bytes, tt.refused)
			}
			if tt.refused {
				wantErr(t, err, "the root kustomization would produce more than 1 MiB")
			}
		})
	}
}

func TestDocumentKind(t *testing.T) {
	for doc, want := range map[string]string{
		"apiVersion: v1\nkind: ConfigMap\n":            "ConfigMap",
		"kind: 'Deployment' # the app\n":               "Deployment",
		"apiVersion: v1\nkind: List\nitems: []\n":      "",
		"{\"kind\": \"ConfigMap\"}":                    "",
		"metadata:\n  kind: Nested\n":                  "",
		"apiVersion: v1\nkind: ConfigMapList\n":        "",
		"apiVersion: example.com/v1\nkind: \"Task\"\n": "Task",
	} {
		if got := documentKind([]byte(doc)); got != want {
			t.Errorf("documentKind(%q) = %q, want %q", doc, got, want)
		}
	}
}

func TestReadSaysWhyABuildFailedWithoutKustomizesWarnings(t *testing.T) {
	files := map[string]string{"kustomization.yaml": "commonLabels: {a: b}\nresources: [cm.yaml]\n",
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {labels: {x: y}}\n"}
	_, err := Read(t.Context(), tree(t, files), "", testLimits)
	wantErr(t, err, "building kustomization.yaml: ", "metadata.name")
	if strings.Contains(err.Error(), "deprecated") {
		t.Errorf("the error carries kustomize's warnings: %v", err)
	}
}

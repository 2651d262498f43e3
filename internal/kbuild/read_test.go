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
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

var testLimits = Limits{MaxObjects: 1000, MaxBytes: 1 << 20, MaxDepth: 10}

func tree(t testing.TB, files map[string]string) *artifact.Tree {
	t.Helper()
	raw := map[string][]byte{}
	for k, v := range files {
		raw[k] = []byte(v)
	}
	tr, err := artifact.NewTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, part := range parts {
		if !strings.Contains(err.Error(), part) {
			t.Fatalf("got %v, want an error containing %q", err, part)
		}
	}
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: 1
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
      - name: app
        image: example.com/app:1
`

var overlay = map[string]string{
	"base/kustomization.yaml": "resources:\n- deployment.yaml\n- settings.yaml\n",
	"base/deployment.yaml":    deployment,
	"base/settings.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: debug\n",
	"overlays/prod/kustomization.yaml": `namePrefix: prod-
resources:
- ../../base
patches:
- path: replicas.yaml
configMapGenerator:
- name: extra
  literals: [a=b]
  options: {disableNameSuffixHash: true}
`,
	"overlays/prod/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 3\n",
}

func TestReadBuildsAnOverlay(t *testing.T) {
	docs, err := Read(t.Context(), tree(t, overlay), "overlays/prod", testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Name != "overlays/prod/kustomization.yaml" {
		t.Fatalf("got documents %v, want the build of overlays/prod/kustomization.yaml", names(docs))
	}
	inputs, err := apply.Decode(docs[0].Name, docs[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, in := range inputs {
		got[in.Object.GetKind()+"/"+in.Object.GetName()] = in.Origin
	}
	want := []string{"ConfigMap/prod-extra", "ConfigMap/prod-settings", "Deployment/prod-app"}
	if diff := cmp.Diff(want, sortedKeys(got)); diff != "" {
		t.Fatalf("objects (-want +got):\n%s", diff)
	}
	for _, in := range inputs {
		if in.Object.GetKind() != "Deployment" {
			continue
		}
		replicas, _, _ := unstructuredInt(in.Object.Object, "spec", "replicas")
		if replicas != 3 {
			t.Errorf("the patch was not applied: replicas %d", replicas)
		}
	}
}

func TestReadBuildsTheRoot(t *testing.T) {
	files := map[string]string{"kustomization.yaml": "resources: [cm.yaml]\n", "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"}
	for _, dir := range []string{"", "."} {
		docs, err := Read(t.Context(), tree(t, files), dir, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 1 || !strings.Contains(string(docs[0].Data), "name: a") {
			t.Errorf("dir %q: got %v", dir, names(docs))
		}
	}
}

func TestReadListsPlainFiles(t *testing.T) {
	files := tree(t, map[string]string{
		"apps/b.yaml":       "b: 1",
		"apps/a/z.yml":      "z: 1",
		"apps/a.json":       "{}",
		"apps/notes.txt":    "not a manifest",
		"apps/UPPER.YAML":   "u: 1",
		"other/c.yaml":      "c: 1",
		"appsbesides/d.yml": "d: 1",
	})
	docs, err := Read(t.Context(), files, "apps", testLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"apps/UPPER.YAML", "apps/a.json", "apps/a/z.yml", "apps/b.yaml"}
	if diff := cmp.Diff(want, names(docs)); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	_, err = Read(t.Context(), files, "apps", Limits{MaxObjects: 10, MaxBytes: 5, MaxDepth: 1})
	wantErr(t, err, "hold more than 5 bytes")
}

func TestReadRefuses(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	tests := []struct {
		name  string
		files map[string]string
		dir   string
		want  []string
	}{{
		name:  "a remote base on GitHub",
		files: map[string]string{"kustomization.yaml": "resources:\n- github.com/example/repo//base?ref=v1\n"},
		want:  []string{"kustomization.yaml resources[0]", `"github.com/example/repo//base?ref=v1" is remote`},
	}, {
		name:  "a remote resource over HTTPS",
		files: map[string]string{"kustomization.yaml": "resources:\n- https://example.com/cm.yaml\n"},
		want:  []string{`"https://example.com/cm.yaml" is remote`},
	}, {
		name:  "a remote base under the legacy bases field",
		files: map[string]string{"kustomization.yaml": "bases:\n- git@github.com:example/repo.git\n"},
		want:  []string{"is remote"},
	}, {
		name:  "an scp-like remote base",
		files: map[string]string{"kustomization.yaml": "resources:\n- deploy@git.example.com:team/repo\n"},
		want:  []string{`"deploy@git.example.com:team/repo" is remote`},
	}, {
		name:  "a host and a colon",
		files: map[string]string{"kustomization.yaml": "resources:\n- github.com:example/repo/base\n"},
		want:  []string{`"github.com:example/repo/base" is remote`},
	}, {
		name:  "a user without a host",
		files: map[string]string{"kustomization.yaml": "components:\n- git@example.com/repo\n"},
		want:  []string{`"git@example.com/repo" is remote`},
	}, {
		name:  "a remote patch",
		files: map[string]string{"kustomization.yaml": "resources: [cm.yaml]\npatches:\n- path: http://169.254.169.254/latest/meta-data\n", "cm.yaml": cm},
		want:  []string{"kustomization.yaml patches[0].path", "is remote"},
	}, {
		name:  "a remote file in a generator",
		files: map[string]string{"kustomization.yaml": "configMapGenerator:\n- name: x\n  files:\n  - key=https://example.com/secret\n"},
		want:  []string{"kustomization.yaml configMapGenerator[0].files[0]", "is remote"},
	}, {
		name: "a remote patch in a builtin transformer's config",
		files: map[string]string{
			"kustomization.yaml": "resources: [cm.yaml]\ntransformers: [patch.yaml]\n", "cm.yaml": cm,
			"patch.yaml": "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: https://example.com/patch.yaml\ntarget: {kind: ConfigMap}\n",
		},
		want: []string{"patch.yaml path", "is remote"},
	}, {
		name: "an exec generator",
		files: map[string]string{
			"kustomization.yaml": "generators: [gen.yaml]\n",
			"gen.yaml": `apiVersion: example.com/v1
kind: SecretFromVault
metadata:
  name: s
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: ./plugin.sh
`,
		},
		want: []string{"gen.yaml", `plugin "SecretFromVault" is a KRM function`},
	}, {
		name: "a container transformer written inline",
		files: map[string]string{
			"kustomization.yaml": "resources: [cm.yaml]\ntransformers:\n- |\n  apiVersion: example.com/v1\n  kind: Mutator\n  metadata:\n    name: m\n    annotations:\n      config.kubernetes.io/function: 'container: {image: evil}'\n",
			"cm.yaml":            cm,
		},
		want: []string{"transformers[0]", "KRM function"},
	}, {
		name: "a Go plugin",
		files: map[string]string{
			"kustomization.yaml": "generators: [gen.yaml]\n",
			"gen.yaml":           "apiVersion: someteam.example.com/v1\nkind: ChartInflator\nmetadata:\n  name: c\n",
		},
		want: []string{`plugin kind "ChartInflator" is not a builtin`},
	}, {
		name:  "a helm chart",
		files: map[string]string{"kustomization.yaml": "helmCharts:\n- name: minecraft\n  repo: https://itzg.github.io/minecraft-server-charts\n"},
		want:  []string{"helm charts are not allowed"},
	}, {
		name: "a helm chart generator config",
		files: map[string]string{
			"kustomization.yaml": "generators: [helm.yaml]\n",
			"helm.yaml":          "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata:\n  name: h\nname: x\n",
		},
		want: []string{`plugin kind "HelmChartInflationGenerator" is not a builtin`},
	}, {
		name:  "a base outside the artifact",
		files: map[string]string{"app/kustomization.yaml": "resources:\n- ../../outside\n"},
		dir:   "app",
		want:  []string{"app/kustomization.yaml resources[0]", `"../../outside" leads outside the artifact`},
	}, {
		name:  "a generator file outside the artifact",
		files: map[string]string{"app/kustomization.yaml": "secretGenerator:\n- name: s\n  envs: [../../../etc/environment]\n"},
		dir:   "app",
		want:  []string{"leads outside the artifact"},
	}, {
		name:  "an absolute path",
		files: map[string]string{"kustomization.yaml": "resources:\n- /etc/passwd\n"},
		want:  []string{`"/etc/passwd" is absolute`},
	}, {
		name:  "a path to read outside the artifact",
		files: map[string]string{"a.yaml": cm},
		dir:   "../x",
		want:  []string{"leads outside the artifact"},
	}, {
		name:  "a path that is not a directory",
		files: map[string]string{"a.yaml": cm},
		dir:   "a.yaml",
		want:  []string{`path "a.yaml" is not a directory`},
	}, {
		name:  "a resource not in the artifact",
		files: map[string]string{"kustomization.yaml": "resources: [missing.yaml]\n"},
		want:  []string{`"missing.yaml" is not in the artifact`},
	}, {
		name:  "a base without a kustomization",
		files: map[string]string{"kustomization.yaml": "resources: [base]\n", "base/cm.yaml": cm},
		want:  []string{`directory "base" is used as a kustomization but holds no kustomization file`},
	}, {
		name: "a cycle",
		files: map[string]string{
			"a/kustomization.yaml": "resources: [../b]\n",
			"b/kustomization.yaml": "resources: [../a]\n",
		},
		dir:  "a",
		want: []string{`kustomization "a" uses itself`},
	}, {
		name:  "two kustomization files",
		files: map[string]string{"kustomization.yaml": "resources: []\n", "Kustomization": "resources: []\n"},
		want:  []string{"more than one kustomization file"},
	}, {
		name:  "an unknown field",
		files: map[string]string{"kustomization.yaml": "resourcez: [cm.yaml]\n"},
		want:  []string{"kustomization.yaml", "unknown field"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(t.Context(), tree(t, tt.files), tt.dir, testLimits)
			wantErr(t, err, tt.want...)
		})
	}
}

// laughs is a kustomization graph of a few KB that asks for
// fanout^levels copies of one ConfigMap: each level uses the level below
// fanout times, under fanout different name prefixes.
func laughs(levels, fanout int) map[string]string {
	files := map[string]string{
		"l0/kustomization.yaml": "resources: [cm.yaml]\n",
		"l0/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\n",
	}
	for level := 1; level <= levels; level++ {
		var parts []string
		for i := range fanout {
			copyDir := fmt.Sprintf("l%d/c%d", level, i)
			files[copyDir+"/kustomization.yaml"] = fmt.Sprintf("namePrefix: c%d-\nresources: [../../l%d]\n", i, level-1)
			parts = append(parts, fmt.Sprintf("c%d", i))
		}
		files[fmt.Sprintf("l%d/kustomization.yaml", level)] = "resources: [" + strings.Join(parts, ", ") + "]\n"
	}
	return files
}

func TestReadRefusesABillionLaughsBeforeBuilding(t *testing.T) {
	files := laughs(9, 10)
	size := 0
	for _, v := range files {
		size += len(v)
	}
	if size > 8<<10 {
		t.Fatalf("the graph takes %d bytes; it should take a few KB", size)
	}
	_, err := Read(t.Context(), tree(t, files), "l9", Limits{MaxObjects: 100_000, MaxBytes: 1 << 40, MaxDepth: 100})
	// The walker's message, not the build's: kustomize never ran.
	wantErr(t, err, `kustomization "l`, "would produce more than 100000 objects")

	_, err = Read(t.Context(), tree(t, files), "l9", Limits{MaxObjects: 1 << 40, MaxBytes: 1 << 20, MaxDepth: 100})
	wantErr(t, err, "would produce more than 1 MiB")
}

func TestReadBuildsAGraphWithinTheLimits(t *testing.T) {
	docs, err := Read(t.Context(), tree(t, laughs(2, 3)), "l2", testLimits)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := apply.Decode(docs[0].Name, docs[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 9 {
		t.Errorf("%d objects, want 3*3", len(inputs))
	}
	_, err = Read(t.Context(), tree(t, laughs(2, 3)), "l2", Limits{MaxObjects: 8, MaxBytes: 1 << 20, MaxDepth: 10})
	wantErr(t, err, "would produce more than 8 objects")
}

func TestReadRefusesDeepNesting(t *testing.T) {
	files := map[string]string{"d0/kustomization.yaml": "resources: [cm.yaml]\n", "d0/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"}
	for i := 1; i <= 5; i++ {
		files[fmt.Sprintf("d%d/kustomization.yaml", i)] = fmt.Sprintf("resources: [../d%d]\n", i-1)
	}
	if _, err := Read(t.Context(), tree(t, files), "d5", Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxDepth: 6}); err != nil {
		t.Fatalf("six levels within a limit of six: %v", err)
	}
	_, err := Read(t.Context(), tree(t, files), "d5", Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxDepth: 5})
	wantErr(t, err, "nested deeper than the limit of 5")
	// Reached first shallow, then deep: the depth still counts.
	files["top/kustomization.yaml"] = "resources: [../d0, ../d5]\nnamePrefix: t-\n"
	_, err = Read(t.Context(), tree(t, files), "top", Limits{MaxObjects: 10, MaxBytes: 1 << 20, MaxDepth: 6})
	wantErr(t, err, "nested deeper than the limit of 6")
}

func names(docs []Document) []string {
	out := make([]string, 0, len(docs))
	for _, d := range docs {
		out = append(out, d.Name)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func unstructuredInt(obj map[string]any, fields ...string) (int64, bool, error) {
	return unstructured.NestedInt64(obj, fields...)
}

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

package helm

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/release"
)

// The chart make build-installer writes, made here as it makes it: these
// tests need no cluster.
const (
	chartImage   = "registry.example.com/applyset-operator:v1.2.3"
	chartVersion = "1.2.3"
)

func writeChart(t *testing.T) (root, dir string) {
	t.Helper()
	root, err := controlplane.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := release.Chart(root, dir, release.ChartOptions{Image: chartImage, Version: chartVersion}); err != nil {
		t.Fatal(err)
	}
	return root, dir
}

// helm lint, strict, finds nothing to warn about, with the defaults and with
// every component enabled, for the Kubernetes versions the CRDs allow.
func TestChartLintsClean(t *testing.T) {
	_, dir := writeChart(t)
	for _, values := range []map[string]any{nil, allComponents()} {
		for _, version := range []string{"v1.35.0", "v1.37.1"} {
			lint := action.NewLint()
			lint.Strict = true
			kube, err := common.ParseKubeVersion(version)
			if err != nil {
				t.Fatal(err)
			}
			lint.KubeVersion = kube
			result := lint.Run([]string{dir}, values)
			for _, m := range result.Messages {
				if m.Severity >= support.WarningSev {
					t.Errorf("helm lint (Kubernetes %s, values %v): %v", version, values, m)
				} else {
					t.Logf("helm lint: %v", m)
				}
			}
			if len(result.Errors) > 0 {
				t.Errorf("helm lint (Kubernetes %s, values %v): %v", version, values, errors.Join(result.Errors...))
			}
		}
	}
}

// The chart renders exactly what kustomize builds from config/default, with
// each component and with all of them, in the release's namespace: only
// the Namespace (Helm's to create), the label that names the manager of the
// objects and the annotation that keeps the CRDs differ.
func TestChartRendersWhatKustomizeBuilds(t *testing.T) {
	root, dir := writeChart(t)
	cases := map[string][]string{"config/default": nil}
	var all []string
	for _, c := range release.Components {
		cases[c.Dir] = []string{c.Key}
		all = append(all, c.Key)
	}
	cases["every component"] = all
	for name, components := range cases {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			values := map[string]any{}
			for _, key := range components {
				values[key] = map[string]any{"enabled": true}
			}
			got := render(t, dir, release.InstallNamespace, map[string]any{"components": values})
			want, err := release.Build(root, components...)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(release.SetImage(want, chartImage)).To(Succeed())
			g.Expect(byKey(got, normalize)).To(Equal(byKey(want, normalize)))
		})
	}
}

// Every object the chart renders lives in the release's namespace and names
// it where the install names its own.
func TestChartInstallsIntoTheReleaseNamespace(t *testing.T) {
	g := NewWithT(t)
	_, dir := writeChart(t)
	objs := render(t, dir, "ops", map[string]any{"components": allComponents()["components"]})
	for _, obj := range objs {
		data, err := obj.MarshalJSON()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(data)).NotTo(ContainSubstring(release.InstallNamespace), "%s %s", obj.GetKind(), obj.GetName())
		if obj.GetNamespace() != "" {
			g.Expect(obj.GetNamespace()).To(Equal("ops"), "%s %s", obj.GetKind(), obj.GetName())
		}
	}
}

// The values set what they say: the image, the replicas, more flags and
// environment variables, the resources, and the CRDs' fate.
func TestChartValues(t *testing.T) {
	g := NewWithT(t)
	_, dir := writeChart(t)
	objs := render(t, dir, "ops", map[string]any{
		"manager": map[string]any{
			"image":     map[string]any{"repository": "mirror.example.com/op", "tag": "v2", "digest": "sha256:" + strings.Repeat("a", 64), "pullPolicy": "Always"},
			"replicas":  2,
			"extraArgs": []any{"--default-service-account=deployer"},
			"extraEnv":  []any{map[string]any{"name": "GOMEMLIMIT", "value": "400MiB"}},
			"resources": map[string]any{"limits": map[string]any{"memory": "1Gi"}},
		},
		"crds": map[string]any{"keep": false},
	})
	deployments := map[string]*unstructured.Unstructured{}
	var crds int
	for _, obj := range objs {
		switch obj.GetKind() {
		case "Deployment":
			deployments[obj.GetName()] = obj
		case "CustomResourceDefinition":
			crds++
			g.Expect(obj.GetAnnotations()).NotTo(HaveKey("helm.sh/resource-policy"))
		}
	}
	g.Expect(crds).To(Equal(4)) // ApplySet, ClusterApplySet, ApplySetInventory, CustomFeatureGates
	g.Expect(deployments).To(HaveLen(1))
	d := deployments["applyset-operator-controller-manager"]
	g.Expect(d.Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("replicas", BeEquivalentTo(2))))
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	c := containers[0].(map[string]any)
	g.Expect(c["image"]).To(Equal("mirror.example.com/op:v2@sha256:" + strings.Repeat("a", 64)))
	g.Expect(c["imagePullPolicy"]).To(Equal("Always"))
	g.Expect(c["args"]).To(Equal([]any{"--leader-elect", "--health-probe-bind-address=:8081", "--metrics-bind-address=:8443",
		"--default-service-account=deployer"}))
	g.Expect(c["env"]).To(ContainElement(map[string]any{"name": "GOMEMLIMIT", "value": "400MiB"}))
	// Helm merges maps of values into the defaults.
	g.Expect(c["resources"]).To(Equal(map[string]any{
		"limits": map[string]any{"cpu": "500m", "memory": "1Gi"}, "requests": map[string]any{"cpu": "10m", "memory": "64Mi"}}))

	withoutCRDs := render(t, dir, "ops", map[string]any{"crds": map[string]any{"install": false}})
	for _, obj := range withoutCRDs {
		g.Expect(obj.GetKind()).NotTo(Equal("CustomResourceDefinition"))
	}
}

func allComponents() map[string]any {
	values := map[string]any{}
	for _, c := range release.Components {
		values[c.Key] = map[string]any{"enabled": true}
	}
	return map[string]any{"components": values}
}

// render renders the chart as `helm template` does, with Helm's SDK.
func render(t *testing.T, dir, namespace string, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	chart, err := loader.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	install := action.NewInstall(action.NewConfiguration())
	install.ReleaseName, install.Namespace, install.DryRunStrategy = release.ChartName, namespace, action.DryRunClient
	kube, err := common.ParseKubeVersion("v1.37.1")
	if err != nil {
		t.Fatal(err)
	}
	install.KubeVersion = kube
	r, err := install.Run(chart, values)
	if err != nil {
		t.Fatalf("rendering the chart with %v: %v", values, err)
	}
	rel, ok := r.(*releasev1.Release)
	if !ok {
		t.Fatalf("a release of type %T", r)
	}
	decoder := yaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(rel.Manifest)), 4096)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		err := decoder.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("the rendered manifest: %v", err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}

// normalize takes out of an object what Helm, not kustomize, decides: the
// Namespace (Helm's --create-namespace makes it), the manager named in the
// managed-by label, and the annotation that keeps the CRDs on uninstall.
func normalize(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if obj.GetKind() == "Namespace" {
		return nil
	}
	obj = obj.DeepCopy()
	// Through JSON, so that numbers read the same on both sides.
	data, _ := obj.MarshalJSON()
	_ = obj.UnmarshalJSON(data)
	labels := obj.GetLabels()
	delete(labels, "app.kubernetes.io/managed-by")
	if len(labels) == 0 {
		labels = nil
	}
	obj.SetLabels(labels)
	annotations := obj.GetAnnotations()
	delete(annotations, "helm.sh/resource-policy")
	if len(annotations) == 0 {
		annotations = nil
	}
	obj.SetAnnotations(annotations)
	return obj
}

func byKey(objs []*unstructured.Unstructured, normalize func(*unstructured.Unstructured) *unstructured.Unstructured) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, obj := range objs {
		if obj = normalize(obj); obj != nil {
			out[obj.GetKind()+"/"+obj.GetNamespace()+"/"+obj.GetName()] = obj.Object
		}
	}
	return out
}

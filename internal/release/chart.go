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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ChartName is the chart's name, and the release name the docs use.
const ChartName = "applyset-operator"

// Kinds the chart treats apart.
const (
	kindCRD       = "CustomResourceDefinition"
	kindNamespace = "Namespace"
)

// ChartOptions say what a chart is made for.
type ChartOptions struct {
	// Image is the manager's image the values name by default.
	Image string
	// Version is the chart's version, SemVer as Helm wants it.
	Version string
}

// managerDelta is what a component changes in the manager's Deployment,
// the only object of config/default a component may change: its replicas,
// and flags and environment variables appended to the manager's.
type managerDelta struct {
	replicas *int64
	args     []string
	env      []any
}

// componentChange is what a component adds to config/default.
type componentChange struct {
	Component
	objects []*unstructured.Unstructured
	manager managerDelta
}

// Chart writes into dir, emptied first, a Helm chart that renders what
// config/default builds: its templates are that output, with the
// namespace of the release, and with values for the manager's image,
// replicas, flags, environment and resources, for each component of
// Components and for the CRDs' fate on uninstall. Other changes a component
// makes are refused, so that the chart cannot drift from kustomize.
func Chart(root, dir string, opts ChartOptions) error {
	base, err := Build(root)
	if err != nil {
		return err
	}
	manager, err := theManager(base)
	if err != nil {
		return err
	}
	var changes []componentChange
	for _, c := range Components {
		variant, err := Build(root, c.Key)
		if err != nil {
			return err
		}
		change, err := diff(c, base, manager, variant)
		if err != nil {
			return err
		}
		changes = append(changes, change)
	}

	files, err := chartFiles(base, manager, changes, opts)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// chartFiles are the chart's files by their path in it.
func chartFiles(base []*unstructured.Unstructured, manager *unstructured.Unstructured, changes []componentChange, opts ChartOptions) (map[string]string, error) {
	files := map[string]string{}
	for _, obj := range base {
		if obj.GetKind() == kindNamespace {
			continue // Helm's --create-namespace makes it, or it is there
		}
		text, err := template(obj, obj == manager, changes)
		if err != nil {
			return nil, err
		}
		if obj.GetKind() == kindCRD {
			text = "{{- if .Values.crds.install }}\n" + text + "{{- end }}\n"
		}
		files[templatePath(obj, "")] = text
	}
	for _, change := range changes {
		for _, obj := range change.objects {
			if obj.GetKind() == kindNamespace || obj.GetKind() == kindCRD {
				return nil, fmt.Errorf("component %s adds a %s, which the chart does not template", change.Dir, obj.GetKind())
			}
			text, err := template(obj, false, nil)
			if err != nil {
				return nil, err
			}
			files[templatePath(obj, change.Key)] = "{{- if .Values.components." + change.Key + ".enabled }}\n" + text + "{{- end }}\n"
		}
	}
	files["Chart.yaml"] = chartYAML(opts)
	values, err := valuesYAML(opts, manager, changes)
	if err != nil {
		return nil, err
	}
	files["values.yaml"] = values
	helpers, err := helpersTpl(changes)
	if err != nil {
		return nil, err
	}
	files["templates/_helpers.tpl"] = helpers
	files["templates/NOTES.txt"] = notes
	files[".helmignore"] = "# Nothing of the chart's directory is left out of its package.\n"
	return files, nil
}

// theManager is the one Deployment of the manager in config/default.
func theManager(objs []*unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var found *unstructured.Unstructured
	for _, obj := range objs {
		if isManager(obj) {
			if found != nil {
				return nil, errors.New("config/default has more than one Deployment of the manager")
			}
			found = obj
		}
	}
	if found == nil {
		return nil, fmt.Errorf("config/default has no Deployment whose %s container runs %s", managerContainer, ImageRepository)
	}
	return found, nil
}

func key(obj *unstructured.Unstructured) string {
	return obj.GetKind() + "/" + obj.GetNamespace() + "/" + obj.GetName()
}

// diff finds what a component adds to config/default: objects, and to the
// manager's Deployment replicas, flags and environment variables.
func diff(c Component, base []*unstructured.Unstructured, manager *unstructured.Unstructured, variant []*unstructured.Unstructured) (componentChange, error) {
	change := componentChange{Component: c}
	byKey := map[string]*unstructured.Unstructured{}
	for _, obj := range base {
		byKey[key(obj)] = obj
	}
	seen := map[string]bool{}
	for _, v := range variant {
		k := key(v)
		seen[k] = true
		b, ok := byKey[k]
		switch {
		case !ok:
			change.objects = append(change.objects, v)
		case reflect.DeepEqual(b.Object, v.Object):
		case b == manager:
			delta, err := managerChange(b, v)
			if err != nil {
				return change, fmt.Errorf("component %s: %w", c.Dir, err)
			}
			change.manager = delta
		default:
			return change, fmt.Errorf("component %s changes %s, which the chart does not template", c.Dir, k)
		}
	}
	for k := range byKey {
		if !seen[k] {
			return change, fmt.Errorf("component %s removes %s, which the chart does not template", c.Dir, k)
		}
	}
	return change, nil
}

// managerChange is what variant changes in the manager's Deployment, which
// must be its replicas, flags appended and environment variables appended.
func managerChange(base, variant *unstructured.Unstructured) (managerDelta, error) {
	var delta managerDelta
	b, v := base.DeepCopy(), variant.DeepCopy()
	br, _, _ := unstructured.NestedInt64(b.Object, "spec", "replicas")
	vr, _, _ := unstructured.NestedInt64(v.Object, "spec", "replicas")
	if br != vr {
		delta.replicas = &vr
		if err := unstructured.SetNestedField(v.Object, br, "spec", "replicas"); err != nil {
			return delta, err
		}
	}
	bc, _ := managerOf(b)
	vc, i := managerOf(v)
	bargs, vargs := strings1(bc["args"]), strings1(vc["args"])
	if len(vargs) < len(bargs) || !slices.Equal(vargs[:len(bargs)], bargs) {
		return delta, errors.New("it changes the manager's flags other than by adding some")
	}
	delta.args = vargs[len(bargs):]
	benv, venv := list(bc["env"]), list(vc["env"])
	if len(venv) < len(benv) || !reflect.DeepEqual(venv[:len(benv)], benv) {
		return delta, errors.New("it changes the manager's environment other than by adding to it")
	}
	delta.env = venv[len(benv):]
	vc["args"], vc["env"] = bc["args"], bc["env"]
	containers, _, _ := unstructured.NestedSlice(v.Object, "spec", "template", "spec", "containers")
	containers[i] = vc
	if err := unstructured.SetNestedSlice(v.Object, containers, "spec", "template", "spec", "containers"); err != nil {
		return delta, err
	}
	if !reflect.DeepEqual(b.Object, v.Object) {
		return delta, errors.New("it changes the manager's Deployment in more than its replicas, flags and environment")
	}
	return delta, nil
}

func strings1(v any) []string {
	items := list(v)
	out := make([]string, 0, len(items))
	for _, s := range items {
		out = append(out, fmt.Sprint(s))
	}
	return out
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// templateDirs are the folders of the chart's templates by kind: the parts
// of the install.
var templateDirs = func() map[string]string {
	dirs := map[string]string{}
	for dir, kinds := range map[string][]string{
		"crd":     {kindCRD},
		"rbac":    {"ServiceAccount", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"},
		"manager": {"Deployment"},
		"webhook": {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "Secret"},
		"service": {"Service"},
		"policy":  {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ConfigMap"},
	} {
		for _, kind := range kinds {
			dirs[kind] = dir
		}
	}
	return dirs
}()

// templatePath is where an object's template goes: a folder per part of the
// install, and one per component.
func templatePath(obj *unstructured.Unstructured, component string) string {
	dir := templateDirs[obj.GetKind()]
	if dir == "" {
		dir = "other"
	}
	if component != "" {
		dir = "components/" + component
	}
	name := strings.TrimPrefix(obj.GetName(), ChartName+"-")
	return "templates/" + dir + "/" + strings.ToLower(obj.GetKind()) + "-" + name + ".yaml"
}

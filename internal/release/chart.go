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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
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
		return nil, fmt.Errorf("config/default has no Deployment whose %s container runs %s", managerContainer, PlaceholderImage)
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

// Placeholders put in an object before it is written as YAML, each replaced
// by template code after.
const (
	phImage        = "__IMAGE__"
	phPullPolicy   = "__PULL_POLICY__"
	phResources    = "__RESOURCES__"
	phReplicas     = "__REPLICAS__"
	phArgs         = "__ARGS__"
	phEnv          = "__ENV__"
	phShardReplica = "__SHARD_REPLICAS__"
	phExtraArgs    = "__EXTRA_ARGS__"
	phExtraEnv     = "__EXTRA_ENV__"
	phKeep         = "__KEEP__"
)

// template writes one object as a template: the YAML kustomize built, with
// the release's namespace and Helm as its manager, and, in a Deployment of
// the manager, the values in place of what they set.
func template(obj *unstructured.Unstructured, isBaseManager bool, changes []componentChange) (string, error) {
	obj, err := withPlaceholders(obj, isBaseManager)
	if err != nil {
		return "", err
	}
	data, err := yaml.Marshal(obj.Object)
	if err != nil {
		return "", err
	}
	// Text of the output that reads as template code is written as text.
	text := strings.ReplaceAll(string(data), "{{", `{{ "{{" }}`)
	text = strings.ReplaceAll(text, InstallNamespace, "{{ .Release.Namespace }}")
	text = strings.ReplaceAll(text, "app.kubernetes.io/managed-by: kustomize", "app.kubernetes.io/managed-by: {{ .Release.Service }}")

	var out strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		code, err := lineTemplate(line, changes)
		if err != nil {
			return "", err
		}
		if code == "" && isPlaceholderLine(line) {
			return "", fmt.Errorf("a placeholder of %s was left in its template: %s", key(obj), strings.TrimSpace(line))
		}
		if code == "" {
			code = line
		}
		out.WriteString(code)
	}
	return out.String(), nil
}

// withPlaceholders is a copy of obj with placeholders where values go: in a
// Deployment of the manager its image, pull policy, resources, replicas,
// flags and environment, and in a CRD the annotation that keeps it.
func withPlaceholders(obj *unstructured.Unstructured, isBaseManager bool) (*unstructured.Unstructured, error) {
	obj = obj.DeepCopy()
	if obj.GetKind() == kindCRD {
		annotations := obj.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[phKeep] = phKeep
		obj.SetAnnotations(annotations)
	}
	if !isManager(obj) {
		return obj, nil
	}
	c, i := managerOf(obj)
	c["image"], c["imagePullPolicy"], c["resources"] = phImage, phPullPolicy, phResources
	replicas := phShardReplica
	if isBaseManager {
		c["args"] = []any{phArgs}
		c["env"] = append(list(c["env"]), phEnv)
		replicas = phReplicas
	} else {
		c["args"] = append(list(c["args"]), phExtraArgs)
		c["env"] = append(list(c["env"]), phExtraEnv)
	}
	if err := unstructured.SetNestedField(obj.Object, replicas, "spec", "replicas"); err != nil {
		return nil, err
	}
	containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
	containers[i] = c
	return obj, unstructured.SetNestedSlice(obj.Object, containers, "spec", "template", "spec", "containers")
}

// lineTemplate is the template code that takes the place of a line holding
// a placeholder, empty for any other line.
func lineTemplate(line string, changes []componentChange) (string, error) {
	trimmed := strings.TrimSpace(line)
	pad := strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " ")))
	extraEnv := fmt.Sprintf("{{- with .Values.manager.extraEnv }}\n{{- toYaml . | nindent %d }}\n{{- end }}\n", len(pad))
	switch trimmed {
	case "image: " + phImage:
		return pad + `image: {{ include "applyset-operator.image" . }}` + "\n", nil
	case "imagePullPolicy: " + phPullPolicy:
		return pad + "imagePullPolicy: {{ .Values.manager.image.pullPolicy }}\n", nil
	case "resources: " + phResources:
		return fmt.Sprintf("%sresources:\n{{- toYaml .Values.manager.resources | nindent %d }}\n", pad, len(pad)+2), nil
	case "replicas: " + phReplicas:
		return pad + `replicas: {{ include "applyset-operator.replicas" . }}` + "\n", nil
	case "replicas: " + phShardReplica:
		return pad + "replicas: {{ .Values.manager.replicas }}\n", nil
	case "- " + phArgs:
		return argsTemplate(pad, changes), nil
	case "- " + phExtraArgs:
		return rangeOf(".Values.manager.extraArgs", pad), nil
	case "- " + phEnv:
		return envTemplate(pad, extraEnv, changes)
	case "- " + phExtraEnv:
		return extraEnv, nil
	case phKeep + ": " + phKeep:
		return fmt.Sprintf("{{- if .Values.crds.keep }}\n%shelm.sh/resource-policy: keep\n{{- end }}\n", pad), nil
	}
	return "", nil
}

// argsTemplate lists the manager's flags: the values', the components'
// while they are enabled, then the values' extra ones.
func argsTemplate(pad string, changes []componentChange) string {
	var out strings.Builder
	out.WriteString(rangeOf(".Values.manager.args", pad))
	for _, change := range changes {
		if len(change.manager.args) == 0 {
			continue
		}
		fmt.Fprintf(&out, "{{- if .Values.components.%s.enabled }}\n", change.Key)
		for _, arg := range change.manager.args {
			quoted, _ := json.Marshal(arg)
			fmt.Fprintf(&out, "%s- %s\n", pad, quoted)
		}
		out.WriteString("{{- end }}\n")
	}
	out.WriteString(rangeOf(".Values.manager.extraArgs", pad))
	return out.String()
}

// envTemplate lists, after the manager's own environment variables, the
// components' while they are enabled, then the values' extra ones.
func envTemplate(pad, extraEnv string, changes []componentChange) (string, error) {
	var out strings.Builder
	for _, change := range changes {
		if len(change.manager.env) == 0 {
			continue
		}
		env, err := yaml.Marshal(change.manager.env)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&out, "{{- if .Values.components.%s.enabled }}\n%s{{- end }}\n", change.Key, indent(string(env), pad))
	}
	out.WriteString(extraEnv)
	return out.String(), nil
}

// isPlaceholderLine reports whether a line still holds a placeholder.
func isPlaceholderLine(line string) bool {
	for _, ph := range []string{phImage, phPullPolicy, phResources, phReplicas, phArgs, phEnv, phShardReplica, phExtraArgs, phExtraEnv, phKeep} {
		if strings.Contains(line, ph) {
			return true
		}
	}
	return false
}

func rangeOf(values, pad string) string {
	return "{{- range " + values + " }}\n" + pad + "- {{ . | quote }}\n{{- end }}\n"
}

func indent(text, pad string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if line != "" {
			b.WriteString(pad + line)
		}
	}
	return b.String()
}

func chartYAML(opts ChartOptions) string {
	_, tag, _ := SplitImage(opts.Image)
	appVersion, _ := json.Marshal(tag)
	return fmt.Sprintf(`apiVersion: v2
name: %s
description: Applies declared sets of Kubernetes objects with server-side apply, prunes only verified members, previews every change, and verifies every ApplySet parent in the cluster.
type: application
version: %s
appVersion: %s
# The CRDs' CEL rules use the list functions of Kubernetes 1.34.
kubeVersion: ">=1.34.0-0"
home: https://github.com/applyset-operator/applyset-operator
sources:
- https://github.com/applyset-operator/applyset-operator
`, ChartName, opts.Version, appVersion)
}

func valuesYAML(opts ChartOptions, manager *unstructured.Unstructured, changes []componentChange) (string, error) {
	repository, tag, digest := SplitImage(opts.Image)
	c, _ := managerOf(manager)
	replicas, _, _ := unstructured.NestedInt64(manager.Object, "spec", "replicas")
	field := func(name string, v any) (string, error) {
		data, err := yaml.Marshal(map[string]any{name: v})
		return indent(string(data), "  "), err
	}
	args, err := field("args", c["args"])
	if err != nil {
		return "", err
	}
	resources, err := field("resources", c["resources"])
	if err != nil {
		return "", err
	}
	q := func(s string) string { data, _ := json.Marshal(s); return string(data) }
	var b strings.Builder
	fmt.Fprintf(&b, `# The values of the applyset-operator chart. Its templates are what
# config/default builds (make build-installer writes both from one kustomize
# output); these values are what an install may change. docs/operations/install.md
# says more.
manager:
  image:
    repository: %s
    tag: %s
    # A digest (sha256:...) pins the image; with it the tag is only a label.
    digest: %s
    pullPolicy: %s
  # Replicas of each manager Deployment: one leads (--leader-elect), the
  # others stand by, unless components.replicas is enabled.
  replicas: %d
  # The manager's flags, as the install passes them (docs/reference/flags.md).
%s  # More flags, after those above and the components', e.g.
  # --default-service-account=deployer or --artifact-allowed-hosts=registry.example.com.
  extraArgs: []
  # More environment variables of the manager container.
  extraEnv: []
%s# The optional components of config/components, each as kustomize adds it.
components:
`, q(repository), q(tag), q(digest), c["imagePullPolicy"], replicas, args, resources)
	for _, change := range changes {
		fmt.Fprintf(&b, "  # %s: %s.\n  %s:\n    enabled: false\n", change.Dir, change.Doc, change.Key)
		if change.manager.replicas != nil {
			fmt.Fprintf(&b, "    # Replicas of the manager while enabled.\n    replicas: %d\n", *change.manager.replicas)
		}
	}
	b.WriteString(`crds:
  # Install the CRDs with the chart; false where they are installed otherwise.
  install: true
  # Keep the CRDs when the release is uninstalled. Deleting a CRD deletes every
  # object of its kind: delete the ApplySet and ClusterApplySet CRDs yourself,
  # while the operator runs, to let every set go and keep its members
  # (docs/operations/uninstall.md).
  keep: true
`)
	return b.String(), nil
}

// helpersTpl defines the image and the manager's replicas: those of the
// component that sets them while it is enabled.
func helpersTpl(changes []componentChange) (string, error) {
	replicas := "{{ .Values.manager.replicas }}\n"
	setBy := ""
	for _, change := range changes {
		if change.manager.replicas == nil {
			continue
		}
		if setBy != "" {
			return "", fmt.Errorf("components %s and %s both set the manager's replicas", setBy, change.Dir)
		}
		setBy = change.Dir
		replicas = fmt.Sprintf("{{- if .Values.components.%[1]s.enabled -}}\n{{ .Values.components.%[1]s.replicas }}\n{{- else -}}\n%[2]s{{- end -}}\n", change.Key, replicas)
	}
	return `{{/* The manager's image: the repository, then the tag, then the digest. */}}
{{- define "applyset-operator.image" -}}
{{- with .Values.manager.image -}}
{{ .repository }}{{ with .tag }}:{{ . }}{{ end }}{{ with .digest }}@{{ . }}{{ end }}
{{- end -}}
{{- end -}}

{{/* The manager's replicas. */}}
{{- define "applyset-operator.replicas" -}}
` + replicas + "{{- end -}}\n", nil
}

const notes = `The operator runs in {{ .Release.Namespace }} as {{ include "applyset-operator.image" . }}.

  kubectl rollout status -n {{ .Release.Namespace }} deployment/applyset-operator-controller-manager

An ApplySet acts as a ServiceAccount of its namespace (by default "default"),
which may do nothing until you grant it what your sets need.

To uninstall and keep every set's members, delete the set CRDs first, while
the operator runs, then the release:

  kubectl delete crd applysets.apply.applyset.dev clusterapplysets.apply.applyset.dev
  helm uninstall {{ .Release.Name }} -n {{ .Release.Namespace }}
`

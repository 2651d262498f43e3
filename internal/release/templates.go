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
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

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

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

func chartYAML(opts ChartOptions) string {
	_, tag, _ := splitImage(opts.Image)
	appVersion, _ := json.Marshal(tag)
	return fmt.Sprintf(`apiVersion: v2
name: %s
description: Applies declared sets of Kubernetes objects with server-side apply, prunes only verified members, previews every change, and verifies every ApplySet parent in the cluster.
type: application
version: %s
appVersion: %s
# The CRDs' CEL rules use the list functions Kubernetes lets CRDs use from 1.35
# (docs/reference/compatibility.md).
kubeVersion: ">=1.35.0-0"
home: https://github.com/applyset-operator/applyset-operator
sources:
- https://github.com/applyset-operator/applyset-operator
`, ChartName, opts.Version, appVersion)
}

func valuesYAML(opts ChartOptions, manager *unstructured.Unstructured, changes []componentChange) (string, error) {
	repository, tag, digest := splitImage(opts.Image)
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

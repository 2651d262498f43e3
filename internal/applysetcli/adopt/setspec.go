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

package adopt

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

const (
	// adoptedKey is the key of the object that holds a declaration out of line.
	adoptedKey = "resources.yaml"
	// inlineLimit is the largest declaration kept inline: the set's status
	// (its plan and members) grows with it, and etcd holds 1.5 MiB per object.
	inlineLimit = 256 << 10
	// holderLimit is the most a ConfigMap's or Secret's data holds.
	holderLimit = 1 << 20
)

var holderResources = map[string]schema.GroupVersionResource{
	"ConfigMap": {Version: "v1", Resource: "configmaps"},
	"Secret":    {Version: "v1", Resource: "secrets"},
}

// newAdoptingSet is the ApplySet that declares what adopt found: inline when
// small and free of Secrets, otherwise from an object of the same name with
// the suffix -adopted, returned too, which the set reads as a source. That
// holder is a Secret when the declaration holds one: inline, or in a
// ConfigMap, its data would be read by everyone who may read the set or
// ConfigMaps (the view role), which Kubernetes keeps Secrets from.
func newAdoptingSet(namespace, name, serviceAccount string, declared []*unstructured.Unstructured) (set, holder *unstructured.Unstructured, err error) {
	typed := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	typed.SetGroupVersionKind(applyv1alpha1.GroupVersion.WithKind("ApplySet"))
	typed.Spec.ServiceAccountName = serviceAccount
	var yamlDocs bytes.Buffer
	size, secrets := 0, false
	for _, obj := range declared {
		r, err := applyv1alpha1.NewResource(obj.Object)
		if err != nil {
			return nil, nil, fmt.Errorf("declaring %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		typed.Spec.Resources = append(typed.Spec.Resources, r)
		doc, err := yaml.Marshal(obj.Object)
		if err != nil {
			return nil, nil, err
		}
		yamlDocs.WriteString("---\n")
		yamlDocs.Write(doc)
		size += len(doc)
		secrets = secrets || obj.GroupVersionKind() == corev1.SchemeGroupVersion.WithKind("Secret")
	}
	if size > inlineLimit || secrets {
		if yamlDocs.Len() > holderLimit {
			return nil, nil, fmt.Errorf("the declaration of the %d objects is %d bytes, more than a ConfigMap or Secret holds: adopt them in several sets", len(declared), yamlDocs.Len())
		}
		typed.Spec.Resources = nil
		kind, data := applyv1alpha1.SourceKindConfigMap, yamlDocs.String()
		if secrets {
			kind, data = applyv1alpha1.SourceKindSecret, base64.StdEncoding.EncodeToString(yamlDocs.Bytes())
		}
		holder = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": string(kind),
			"metadata": map[string]any{"namespace": namespace, "name": name + "-adopted"}, "data": map[string]any{adoptedKey: data}}}
		typed.Spec.Sources = []applyv1alpha1.Source{{Kind: kind, Name: holder.GetName(), Key: adoptedKey}}
	}
	data, err := json.Marshal(typed)
	if err != nil {
		return nil, nil, err
	}
	set = &unstructured.Unstructured{}
	if err := set.UnmarshalJSON(data); err != nil {
		return nil, nil, err
	}
	unstructured.RemoveNestedField(set.Object, "status")
	unstructured.RemoveNestedField(set.Object, "metadata", "creationTimestamp")
	return set, holder, nil
}

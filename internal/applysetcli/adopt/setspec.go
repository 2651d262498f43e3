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
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

const (
	// adoptedKey is the key of the ConfigMap that holds a large declaration.
	adoptedKey = "resources.yaml"
	// inlineLimit is the largest declaration kept inline: the set's status
	// (its plan and members) grows with it, and etcd holds 1.5 MiB per object.
	inlineLimit = 256 << 10
	// configMapLimit is the most a ConfigMap's data holds.
	configMapLimit = 1 << 20
)

var configMapsResource = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// newAdoptingSet is the ApplySet that declares what adopt found: inline when
// small, otherwise from a ConfigMap of the same name with the suffix
// -adopted, returned too, which the set reads as a source.
func newAdoptingSet(namespace, name, serviceAccount string, declared []*unstructured.Unstructured) (set, configMap *unstructured.Unstructured, err error) {
	typed := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	typed.SetGroupVersionKind(applyv1alpha1.GroupVersion.WithKind("ApplySet"))
	typed.Spec.ServiceAccountName = serviceAccount
	var yamlDocs bytes.Buffer
	size := 0
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
	}
	if size > inlineLimit {
		if yamlDocs.Len() > configMapLimit {
			return nil, nil, fmt.Errorf("the declaration of the %d objects is %d bytes, more than a ConfigMap holds: adopt them in several sets", len(declared), yamlDocs.Len())
		}
		typed.Spec.Resources = nil
		configMap = &unstructured.Unstructured{}
		configMap.SetAPIVersion("v1")
		configMap.SetKind("ConfigMap")
		configMap.SetNamespace(namespace)
		configMap.SetName(name + "-adopted")
		if err := unstructured.SetNestedField(configMap.Object, yamlDocs.String(), "data", adoptedKey); err != nil {
			return nil, nil, err
		}
		typed.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: configMap.GetName(), Key: adoptedKey}}
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
	return set, configMap, nil
}

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

package featuregate

import (
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
)

func TestCheckPaths(t *testing.T) {
	schema := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"replicas": {Type: "integer"},
			"size":     {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("3")}},
			"foo": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"qux": {Type: "integer"},
			}},
			"free":   {Type: "object", XPreserveUnknownFields: ptr.To(true)},
			"labels": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
		}},
	}}
	unknown, defaulted := CheckPaths(schema, []string{
		".spec.replicas", ".spec.size", ".spec.foo.qux", ".spec.foo.nope", ".spec.free.anything.deeper",
		".spec.labels.app", ".spec.labels.app.deeper", ".status.x", ".spec.replicas.deeper",
	})
	if want := []string{".spec.foo.nope", ".spec.labels.app.deeper", ".status.x", ".spec.replicas.deeper"}; !slices.Equal(unknown, want) {
		t.Errorf("unknown = %v, want %v", unknown, want)
	}
	if want := []string{".spec.size"}; !slices.Equal(defaulted, want) {
		t.Errorf("defaulted = %v, want %v", defaulted, want)
	}
}

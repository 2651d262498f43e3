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
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// CheckPaths compares gated paths with a CRD version's schema. Unknown paths
// name no declared field (and no object that keeps unknown fields on the way);
// defaulted paths carry a schema default, which the API server puts back after
// the webhook dropped the field, so such a gate cannot work.
func CheckPaths(schema *apiextensionsv1.JSONSchemaProps, paths []string) (unknown, defaulted []string) {
	for _, p := range paths {
		node, known := lookupSchema(schema, strings.Split(strings.TrimPrefix(p, "."), "."))
		switch {
		case !known:
			unknown = append(unknown, p)
		case node != nil && node.Default != nil:
			defaulted = append(defaulted, p)
		}
	}
	return unknown, defaulted
}

// lookupSchema follows names through the schema. It returns the node of the
// path when declared, nil and true when an object on the way keeps unknown
// fields (the path is allowed but not described), and false when the path
// cannot exist.
func lookupSchema(schema *apiextensionsv1.JSONSchemaProps, names []string) (*apiextensionsv1.JSONSchemaProps, bool) {
	node := schema
	for _, n := range names {
		if node == nil {
			return nil, false
		}
		if child, ok := node.Properties[n]; ok {
			node = &child
			continue
		}
		if node.XPreserveUnknownFields != nil && *node.XPreserveUnknownFields {
			return nil, true
		}
		if node.AdditionalProperties != nil && (node.AdditionalProperties.Allows || node.AdditionalProperties.Schema != nil) {
			node = node.AdditionalProperties.Schema
			if node == nil {
				return nil, true
			}
			continue
		}
		return nil, false
	}
	return node, true
}

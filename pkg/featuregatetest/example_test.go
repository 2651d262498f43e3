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

package featuregatetest_test

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregatetest"
)

// A CRD author tests their CRD under a gate: envtest runs the API server
// (KUBEBUILDER_ASSETS names its binaries), Install puts the gate in force, and
// a create of a widget that sets the gated field stores it without.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env := &envtest.Environment{CRDs: []*apiextensionsv1.CustomResourceDefinition{widgets()}}
	config, err := env.Start()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = env.Stop() }()

	gates := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: featuresv1alpha1.CustomFeatureGatesSpec{FeatureGates: []featuresv1alpha1.FeatureGate{
			{Name: "Autoscaling", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.autoscaling"}},
		}}}
	if err := featuregatetest.Install(ctx, config, gates); err != nil {
		fmt.Println(err)
		return
	}

	c, err := client.New(config, client.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	widget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec":     map[string]any{"size": "large", "autoscaling": map[string]any{"max": int64(3)}},
	}}
	if err := c.Create(ctx, widget); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stored spec:", widget.Object["spec"])

	// Turned on, the gate lets the field through.
	gates.Spec.FeatureGates[0].Enabled = ptr.To(true)
	if err := featuregatetest.Install(ctx, config, gates); err != nil {
		fmt.Println(err)
		return
	}
	widget.SetName("w2")
	widget.SetResourceVersion("")
	widget.Object["spec"] = map[string]any{"size": "large", "autoscaling": map[string]any{"max": int64(3)}}
	if err := c.Create(ctx, widget); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stored spec:", widget.Object["spec"])
	// Output:
	// stored spec: map[size:large]
	// stored spec: map[autoscaling:map[max:3] size:large]
}

func widgets() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "string"},
							"autoscaling": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"max": {Type: "integer"}}},
						}},
					}}}}},
		},
	}
}

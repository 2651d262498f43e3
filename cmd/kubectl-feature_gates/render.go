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

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/crdvalidate"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// render writes, as YAML, the admission policies the operator's policy
// backend writes for each CustomFeatureGates in the manifests, for a cluster
// managed without the operator. Each gated CRD must be among the manifests:
// the policies match its storage version. The policies carry no owner (there
// may be no CustomFeatureGates object in the cluster to own them).
func render(w io.Writer, manifests ...io.Reader) error {
	gates, crds, err := readManifests(manifests...)
	if err != nil {
		return err
	}
	var docs []string
	for _, cfg := range gates {
		crd, ok := crds[cfg.Name]
		if !ok {
			return fmt.Errorf("CustomFeatureGates %s: its CustomResourceDefinition is not among the manifests; add it with another -f", cfg.Name)
		}
		policies, err := featuregate.ForCRD(cfg, crd)
		if err != nil {
			return fmt.Errorf("CustomFeatureGates %s: %w", cfg.Name, err)
		}
		if _, err := featuregate.Check(policies); err != nil {
			return fmt.Errorf("CustomFeatureGates %s: the API server would refuse its policies: %w", cfg.Name, err)
		}
		for _, obj := range policies.Objects() {
			data, err := yaml.Marshal(obj)
			if err != nil {
				return err
			}
			docs = append(docs, string(data))
		}
	}
	_, err = io.WriteString(w, strings.Join(docs, "---\n"))
	return err
}

// readManifests returns the CustomFeatureGates of the manifests, sorted by
// name and checked as the API server checks them (their bounds keep the
// policies within its limits), and the CRDs by name.
func readManifests(manifests ...io.Reader) ([]*featuresv1alpha1.CustomFeatureGates, map[string]*apiextensionsv1.CustomResourceDefinition, error) {
	validator, err := crdvalidate.Operator()
	if err != nil {
		return nil, nil, err
	}
	var gates []*featuresv1alpha1.CustomFeatureGates
	crds := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, r := range manifests {
		decoder := utilyaml.NewYAMLOrJSONDecoder(bufio.NewReader(r), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, nil, fmt.Errorf("reading manifests: %w", err)
			}
			switch obj.GroupVersionKind() {
			case featuresv1alpha1.GroupVersion.WithKind("CustomFeatureGates"):
				cfg, err := decodeGates(validator, obj)
				if err != nil {
					return nil, nil, err
				}
				gates = append(gates, cfg)
			case apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"):
				crd := &apiextensionsv1.CustomResourceDefinition{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, crd); err != nil {
					return nil, nil, fmt.Errorf("CustomResourceDefinition %s: %w", obj.GetName(), err)
				}
				crds[crd.Name] = crd
			}
		}
	}
	if len(gates) == 0 {
		return nil, nil, errors.New("no CustomFeatureGates among the manifests")
	}
	slices.SortFunc(gates, func(a, b *featuresv1alpha1.CustomFeatureGates) int { return strings.Compare(a.Name, b.Name) })
	return gates, crds, nil
}

func decodeGates(validator *crdvalidate.Validator, obj *unstructured.Unstructured) (*featuresv1alpha1.CustomFeatureGates, error) {
	if _, errs, err := validator.Validate(context.Background(), obj); err != nil {
		return nil, err
	} else if len(errs) > 0 {
		return nil, fmt.Errorf("CustomFeatureGates %s is invalid: %w", obj.GetName(), errs.ToAggregate())
	}
	cfg := &featuresv1alpha1.CustomFeatureGates{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, cfg, true); err != nil {
		return nil, fmt.Errorf("CustomFeatureGates %s: %w", obj.GetName(), err)
	}
	return cfg, nil
}

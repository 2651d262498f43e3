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

// Package featuregatetest enforces CustomFeatureGates in a test's API server
// (an envtest.Environment's, say) without the operator: it compiles the gates
// into the admission policies the operator's policy backend writes, installs
// them, and waits until the API server runs them. CRD authors test their own
// CRD under gates with it.
package featuregatetest

import (
	"context"
	"errors"
	"fmt"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/config/crd"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// fieldManager owns what Install writes.
const fieldManager = "featuregatetest"

// Install enforces gates on the API server of config as the operator's policy
// backend does: it installs the CustomFeatureGates CRD when it is missing,
// creates gates (or updates their spec), writes the admission policies
// compiled from them for the CRD they name, which must exist, and returns once
// the API server runs those policies, or ctx ends. Call it again after
// changing the gates.
func Install(ctx context.Context, config *rest.Config, gates *featuresv1alpha1.CustomFeatureGates) error {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{apiextensionsv1.AddToScheme, featuresv1alpha1.AddToScheme, admissionv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	c, err := client.New(config, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if err := installAPI(ctx, c); err != nil {
		return err
	}
	target := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: gates.Name}, target); err != nil {
		return fmt.Errorf("reading the gated CRD: %w", err)
	}
	cfg, err := writeGates(ctx, c, gates)
	if err != nil {
		return err
	}
	policies, err := featuregate.ForCRD(cfg, target)
	if err != nil {
		return err
	}
	if _, err := featuregate.Check(policies); err != nil {
		return err
	}
	if err := writePolicies(ctx, c, cfg, policies); err != nil {
		return err
	}
	return wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		err := c.Status().Patch(ctx, cfg.DeepCopy(), client.RawPatch(types.MergePatchType, featuregate.ProbePatch(policies.Revision)), client.DryRunAll)
		return featuregate.ReadPolicyProbe(err, policies.Mutating.Name)
	})
}

// installAPI creates the CustomFeatureGates CRD the operator ships, unless
// one exists, and waits until it is served.
func installAPI(ctx context.Context, c client.Client) error {
	data, err := crd.Bases.ReadFile("bases/features.applyset.dev_customfeaturegates.yaml")
	if err != nil {
		return err
	}
	api := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, api); err != nil {
		return err
	}
	if err := c.Create(ctx, api); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("installing the CustomFeatureGates CRD: %w", err)
	}
	return wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(api), api); err != nil {
			return false, err
		}
		for _, cond := range api.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}

// writeGates creates gates, or sets the spec of the existing object, and
// returns the stored object.
func writeGates(ctx context.Context, c client.Client, gates *featuresv1alpha1.CustomFeatureGates) (*featuresv1alpha1.CustomFeatureGates, error) {
	stored := &featuresv1alpha1.CustomFeatureGates{}
	err := c.Get(ctx, client.ObjectKeyFromObject(gates), stored)
	switch {
	case apierrors.IsNotFound(err):
		stored = gates.DeepCopy()
		stored.ResourceVersion = ""
		err = c.Create(ctx, stored)
	case err == nil:
		stored.Spec = gates.Spec
		err = c.Update(ctx, stored)
	}
	if err != nil {
		return nil, fmt.Errorf("writing CustomFeatureGates %s: %w", gates.Name, err)
	}
	return stored, nil
}

// writePolicies applies the policies, controlled by cfg, and deletes the
// validating ones the gates no longer need.
func writePolicies(ctx context.Context, c client.Client, cfg *featuresv1alpha1.CustomFeatureGates, policies featuregate.Policies) error {
	if policies.Validating == nil {
		name := featuregate.PolicyName(cfg.Name)
		for _, obj := range []client.Object{&admissionv1.ValidatingAdmissionPolicyBinding{}, &admissionv1.ValidatingAdmissionPolicy{}} {
			obj.SetName(name)
			if err := c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
				return err
			}
		}
	}
	owner := metav1.OwnerReference{APIVersion: featuresv1alpha1.GroupVersion.String(), Kind: "CustomFeatureGates",
		Name: cfg.Name, UID: cfg.UID, Controller: ptr.To(true)}
	var errs []error
	for _, obj := range policies.Objects() {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{Object: content}
		u.SetOwnerReferences([]metav1.OwnerReference{owner})
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldManager), client.ForceOwnership); err != nil {
			errs = append(errs, fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err))
		}
	}
	return errors.Join(errs...)
}

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
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
)

// setupFeatureGates adds the CustomFeatureGates reconciler, with the backend
// --featuregate-backend resolves to, to mgr, and returns that backend.
func setupFeatureGates(mgr ctrl.Manager, cfg *rest.Config, opts options) (featuregates.Backend, error) {
	backend, err := featureGateBackend(cfg, opts.featureGateBackend)
	if err != nil {
		return "", err
	}
	setupLog.Info("Feature gates enforced by the " + string(backend) + " backend")
	gateOpts := featuregates.Options{WebhookConfiguration: opts.webhooks.configuration, Backend: backend}
	if opts.webhooks.disabled {
		gateOpts.WebhookConfiguration = ""
	}
	if err := featuregates.SetupWithManager(mgr, gateOpts); err != nil {
		return "", fmt.Errorf("setting up the CustomFeatureGates reconciler: %w", err)
	}
	return backend, nil
}

// backendAuto picks the feature gate backend from what the API server serves.
const backendAuto = "auto"

// featureGateBackend resolves --featuregate-backend: auto is the policy
// backend where the API server serves MutatingAdmissionPolicies in
// admissionregistration.k8s.io/v1, and the webhook elsewhere.
func featureGateBackend(cfg *rest.Config, flag string) (featuregates.Backend, error) {
	switch backend := featuregates.Backend(flag); backend {
	case featuregates.BackendWebhook, featuregates.BackendPolicy:
		return backend, nil
	case backendAuto:
	default:
		return "", fmt.Errorf("--featuregate-backend=%s: want auto, policy or webhook", flag)
	}
	served, err := servesPolicies(cfg)
	if err != nil {
		return "", fmt.Errorf("--featuregate-backend=auto: %w", err)
	}
	if served {
		return featuregates.BackendPolicy, nil
	}
	return featuregates.BackendWebhook, nil
}

// servesPolicies asks discovery whether the API server serves
// MutatingAdmissionPolicies in admissionregistration.k8s.io/v1.
func servesPolicies(cfg *rest.Config) (bool, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return false, err
	}
	resources, err := dc.ServerResourcesForGroupVersion(admissionv1.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discovering %s: %w", admissionv1.SchemeGroupVersion, err)
	}
	return slices.ContainsFunc(resources.APIResources, func(r metav1.APIResource) bool {
		return r.Name == "mutatingadmissionpolicies"
	}), nil
}

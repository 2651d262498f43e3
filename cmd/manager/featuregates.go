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
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
)

// setupFeatureGates adds the CustomFeatureGates reconciler, with the backend
// --featuregate-backend resolves to, to mgr, and returns that backend.
func setupFeatureGates(mgr ctrl.Manager, cfg *rest.Config, opts options) (featuregates.Backend, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	backend, missing, err := featureGateBackend(ctx, cfg, opts.featureGateBackend)
	if err != nil {
		return "", err
	}
	switch {
	case backend == featuregates.BackendPolicy && len(missing) > 0:
		setupLog.Error(errors.New("the operator lacks rights on admission policies: "+strings.Join(missing, ", ")),
			"--featuregate-backend=policy enforces no gate: add config/components/policy-backend to the install and restart, "+
				"or run with --featuregate-backend=webhook or auto")
	case opts.featureGateBackend == backendAuto && backend == featuregates.BackendWebhook && len(missing) > 0:
		setupLog.Info("Feature gates enforced by the webhook backend: the operator may not write admission policies "+
			"(config/components/policy-backend grants that); the policy backend would need them", "missing", missing)
	default:
		setupLog.Info("Feature gates enforced by the " + string(backend) + " backend")
	}
	// Writes of namespaced gated kinds are probed in the operator's own
	// namespace, where config/rbac lets the probe identity make dry runs.
	gateOpts := featuregates.Options{WebhookConfiguration: opts.webhooks.configuration, Backend: backend, MissingPolicyRights: missing,
		ProbeNamespace: os.Getenv("POD_NAMESPACE")}
	if opts.webhooks.disabled {
		gateOpts.WebhookConfiguration = ""
	}
	if err := featuregates.SetupWithManager(mgr, gateOpts); err != nil {
		return "", fmt.Errorf("setting up the CustomFeatureGates reconciler: %w", err)
	}
	return backend, nil
}

// backendAuto picks the feature gate backend from what the API server serves
// and what the operator may do.
const backendAuto = "auto"

// featureGateBackend resolves --featuregate-backend, and returns the rights
// on admission policies the operator lacks (featuregates.PolicyRights). auto
// is the policy backend where the API server serves MutatingAdmissionPolicies
// in admissionregistration.k8s.io/v1 and the operator holds those rights
// (config/components/policy-backend), and the webhook elsewhere.
func featureGateBackend(ctx context.Context, cfg *rest.Config, flag string) (featuregates.Backend, []string, error) {
	backend := featuregates.Backend(flag)
	switch backend {
	case featuregates.BackendWebhook, featuregates.BackendPolicy, backendAuto:
	default:
		return "", nil, fmt.Errorf("--featuregate-backend=%s: want auto, policy or webhook", flag)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return "", nil, err
	}
	missing, err := featuregates.MissingPolicyRights(ctx, c)
	if err != nil {
		return "", nil, fmt.Errorf("--featuregate-backend=%s: %w", flag, err)
	}
	if backend != backendAuto {
		return backend, missing, nil
	}
	served, err := servesPolicies(cfg)
	if err != nil {
		return "", nil, fmt.Errorf("--featuregate-backend=auto: %w", err)
	}
	if served && len(missing) == 0 {
		return featuregates.BackendPolicy, nil, nil
	}
	return featuregates.BackendWebhook, missing, nil
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

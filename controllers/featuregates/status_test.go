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

package featuregates

import (
	"errors"
	"testing"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

func TestComputeStatus(t *testing.T) {
	gates := []featuresv1alpha1.FeatureGate{
		{Name: "On", PreRelease: featuresv1alpha1.Alpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.replicas"}},
		{Name: "Off", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.foo"}},
	}
	registered := enforcement{backend: BackendWebhook, configuration: DefaultConfigurationName, registered: true, loaded: true}
	tests := []struct {
		name        string
		gates       []featuresv1alpha1.FeatureGate
		noCRD       bool
		webhook     enforcement
		ready       metav1.ConditionStatus
		reason      string
		message     string
		reconciling bool
		stalled     bool
	}{{
		name: "no CRD", gates: gates, noCRD: true, webhook: registered,
		ready: metav1.ConditionFalse, reason: ReasonCRDNotFound, reconciling: true,
		message: "CustomResourceDefinition crontabs.stable.example.com does not exist (or has no schema); the gates take effect when it does",
	}, {
		name: "registered and called", gates: gates, webhook: registered,
		ready: metav1.ConditionTrue, reason: ReasonGatesEvaluated,
		message: "1 of 2 gates enabled over fields of crontabs.stable.example.com; " +
			"enforced by the webhook, MutatingWebhookConfiguration applyset-operator-featuregates",
	}, {
		name: "registered, not called yet", gates: gates,
		webhook: enforcement{backend: BackendWebhook, configuration: DefaultConfigurationName, registered: true},
		ready:   metav1.ConditionFalse, reason: ReasonWebhookLoading, reconciling: true,
		message: "1 of 2 gates enabled over fields of crontabs.stable.example.com; " +
			"registered in MutatingWebhookConfiguration applyset-operator-featuregates, waiting for the API server to call the webhook through it",
	}, {
		name: "webhook probe failed", gates: gates,
		webhook: enforcement{backend: BackendWebhook, configuration: DefaultConfigurationName, registered: true, probeFailed: true,
			err: errors.New("asking the API server whether it calls the webhook: failed calling webhook")},
		ready: metav1.ConditionFalse, reason: ReasonWebhookProbeFailed, reconciling: true,
		message: "1 of 2 gates enabled over fields of crontabs.stable.example.com; " +
			"registered in MutatingWebhookConfiguration applyset-operator-featuregates, asking the API server whether it calls the webhook: failed calling webhook",
	}, {
		name: "policies written, not loaded yet", gates: gates, webhook: enforcement{backend: BackendPolicy, registered: true},
		ready: metav1.ConditionFalse, reason: ReasonPolicyLoading, reconciling: true,
		message: "1 of 2 gates enabled over fields of crontabs.stable.example.com; " +
			"admission policies featuregates.crontabs.stable.example.com are written, waiting for the API server to load them",
	}, {
		name: "policies probe refused", gates: gates,
		webhook: enforcement{backend: BackendPolicy, registered: true, probeFailed: true, err: errors.New("asking the API server whether it runs them: forbidden")},
		ready:   metav1.ConditionFalse, reason: ReasonProbeFailed, reconciling: true,
		message: "1 of 2 gates enabled over fields of crontabs.stable.example.com; " +
			"admission policies featuregates.crontabs.stable.example.com are written, asking the API server whether it runs them: forbidden",
	}, {
		name: "policies loaded", gates: gates, webhook: enforcement{backend: BackendPolicy, registered: true, loaded: true},
		ready: metav1.ConditionTrue, reason: ReasonGatesEvaluated,
		message: "1 of 2 gates enabled over fields of crontabs.stable.example.com; " +
			"enforced by the API server, admission policies featuregates.crontabs.stable.example.com",
	}, {
		name: "policies refused", gates: gates, webhook: enforcement{backend: BackendPolicy, err: errors.New("forbidden")},
		ready: metav1.ConditionFalse, reason: ReasonPolicyFailed, reconciling: true,
		message: "1 of 2 gates enabled over fields of crontabs.stable.example.com; " +
			"writing the admission policies that enforce them failed: forbidden",
	}, {
		name: "entry not written yet", gates: gates, webhook: enforcement{backend: BackendWebhook, configuration: DefaultConfigurationName},
		ready: metav1.ConditionFalse, reason: ReasonWebhookPending, reconciling: true,
		message: "1 of 2 gates enabled over fields of crontabs.stable.example.com; " +
			"registering the webhook for it in MutatingWebhookConfiguration applyset-operator-featuregates",
	}, {
		name: "webhooks disabled", gates: gates, webhook: enforcement{backend: BackendWebhook},
		ready: metav1.ConditionFalse, reason: ReasonWebhooksOff,
		message: "1 of 2 gates enabled over fields of crontabs.stable.example.com; the operator runs with --disable-webhooks, so no field is dropped",
	}, {
		name:  "unknown path",
		gates: append(gates, featuresv1alpha1.FeatureGate{Name: "Typo", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.nope"}}), webhook: registered,
		ready: metav1.ConditionFalse, reason: ReasonUnknownPaths, stalled: true,
		message: ".spec.nope: not in the schema of crontabs.stable.example.com; fix the paths",
	}, {
		name:  "defaulted path",
		gates: append(gates, featuresv1alpha1.FeatureGate{Name: "Zone", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.timeZone"}}), webhook: registered,
		ready: metav1.ConditionFalse, reason: ReasonDefaultedPaths, stalled: true,
		message: ".spec.timeZone: the schema of crontabs.stable.example.com declares a default, which the API server restores after a drop; " +
			"remove the default or the gate",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com", Generation: 3}}
			cfg.Spec.FeatureGates = tt.gates
			crd := cronTabs()
			if tt.noCRD {
				crd = nil
			}
			computeStatus(cfg, crd, tt.webhook)

			ready := apimeta.FindStatusCondition(cfg.Status.Conditions, featuresv1alpha1.ConditionReady)
			if ready == nil {
				t.Fatal("no Ready condition")
			}
			if ready.Status != tt.ready || ready.Reason != tt.reason || ready.Message != tt.message {
				t.Errorf("Ready = %s/%s %q, want %s/%s %q", ready.Status, ready.Reason, ready.Message, tt.ready, tt.reason, tt.message)
			}
			if ready.ObservedGeneration != 3 || cfg.Status.ObservedGeneration != 3 {
				t.Errorf("observedGeneration = %d (condition), %d (status), want 3", ready.ObservedGeneration, cfg.Status.ObservedGeneration)
			}
			if got := apimeta.IsStatusConditionTrue(cfg.Status.Conditions, featuresv1alpha1.ConditionReconciling); got != tt.reconciling {
				t.Errorf("Reconciling = %v, want %v", got, tt.reconciling)
			}
			if got := apimeta.IsStatusConditionTrue(cfg.Status.Conditions, featuresv1alpha1.ConditionStalled); got != tt.stalled {
				t.Errorf("Stalled = %v, want %v", got, tt.stalled)
			}
		})
	}
}

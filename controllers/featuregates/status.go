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
	"fmt"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// Condition reasons.
const (
	ReasonGatesEvaluated = "GatesEvaluated"
	ReasonCRDNotFound    = "CRDNotFound"
	ReasonUnknownPaths   = "UnknownFieldPaths"
	ReasonDefaultedPaths = "DefaultedFieldPaths"
	ReasonWebhookPending = "WebhookPending"
	ReasonWebhooksOff    = "WebhooksDisabled"
	ReasonPolicyFailed   = "PolicyApplyFailed"
	ReasonPolicyLoading  = "PolicyNotLoaded"
	ReasonProbeFailed    = "PolicyProbeFailed"
	// ReasonWebhookLoading and ReasonWebhookProbeFailed are the webhook's
	// counterparts of ReasonPolicyLoading and ReasonProbeFailed.
	ReasonWebhookLoading     = "WebhookNotLoaded"
	ReasonWebhookProbeFailed = "WebhookProbeFailed"
	// ReasonOperatorCRD marks gates over one of the operator's own CRDs,
	// which the operator does not enforce (featuregate.CheckTarget).
	ReasonOperatorCRD = "OperatorCRD"
)

// ReasonWebhookConfigMissing says the MutatingWebhookConfiguration the
// install ships does not exist; the operator does not create it.
const ReasonWebhookConfigMissing = "WebhookConfigurationMissing"

// ReasonPolicyForbidden says the policy backend was asked for and the
// operator lacks the rights it needs (config/components/policy-backend).
const ReasonPolicyForbidden = "PolicyBackendForbidden"

// Reasons of the write probe (admission.go): the gates are in force, but a
// write of the gated kind is not admitted yet, or the probe may not ask.
const (
	ReasonAwaitingAdmission     = "AwaitingAdmission"
	ReasonAdmissionProbeRefused = "AdmissionProbeForbidden"
)

// enforcement is what status says of how one object's gates are enforced.
type enforcement struct {
	backend Backend
	// configuration is the webhook configuration; empty when webhooks are off.
	configuration string
	// registered says the webhook entry, or the policies, are in place.
	registered bool
	// missing says the webhook configuration does not exist.
	missing bool
	// forbidden lists the rights the policy backend lacks.
	forbidden []string
	// written is the write probe's answer, made once the gates are in force.
	written writeAdmission
	// loaded says the API server runs the policies as written.
	loaded bool
	// err says why the policies could not be written, or probed when
	// probeFailed is set.
	err         error
	probeFailed bool
}

// recheck is how soon to ask again whether the API server runs the policies,
// or calls the webhook entry, it has not loaded yet: it reloads them about
// once a second.
func (e enforcement) recheck() time.Duration {
	if e.registered && !e.loaded && e.err == nil {
		return time.Second
	}
	return e.written.retry
}

// inForce says the backend enforces the gates as written: what remains to
// ask is whether writes of the gated kind get through (written).
func (e enforcement) inForce() bool {
	if e.backend == BackendPolicy {
		return len(e.forbidden) == 0 && e.err == nil && e.registered && e.loaded
	}
	return e.configuration != "" && !e.missing && e.registered && e.err == nil && e.loaded
}

// computeStatus fills in the status from the gates, the target CRD (nil when
// it does not exist) and how they are enforced. It makes no API calls.
func computeStatus(cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition, webhook enforcement) {
	status := &cfg.Status
	status.FeatureGates = nil
	var paths []string
	for _, gate := range featuregate.FromAPI(cfg.Spec.FeatureGates) {
		enabled, reason := featuregate.Effective(gate)
		status.FeatureGates = append(status.FeatureGates, featuresv1alpha1.FeatureGateStatus{
			Name: gate.Name, Enabled: ptr.To(enabled), Reason: reason,
		})
		paths = append(paths, gate.FieldPaths...)
	}
	status.ObservedGeneration = cfg.Generation
	set := func(kind string, s metav1.ConditionStatus, reason, msg string) {
		apimeta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: kind, Status: s, Reason: reason, Message: msg, ObservedGeneration: cfg.Generation,
		})
	}

	var schema *apiextensionsv1.JSONSchemaProps
	if v := storageVersion(crd); v != nil && v.Schema != nil {
		schema = v.Schema.OpenAPIV3Schema
	}
	if schema == nil {
		status.UnknownFieldPaths, status.DefaultedFieldPaths = nil, nil
		msg := fmt.Sprintf("CustomResourceDefinition %s does not exist (or has no schema); the gates take effect when it does", cfg.Name)
		set(featuresv1alpha1.ConditionReady, metav1.ConditionFalse, ReasonCRDNotFound, msg)
		set(featuresv1alpha1.ConditionReconciling, metav1.ConditionTrue, ReasonCRDNotFound, msg)
		apimeta.RemoveStatusCondition(&status.Conditions, featuresv1alpha1.ConditionStalled)
		return
	}
	apimeta.RemoveStatusCondition(&status.Conditions, featuresv1alpha1.ConditionReconciling)
	status.UnknownFieldPaths, status.DefaultedFieldPaths = featuregate.CheckPaths(schema, paths)
	switch {
	case len(status.UnknownFieldPaths) > 0:
		msg := fmt.Sprintf("%s: not in the schema of %s; fix the paths", strings.Join(status.UnknownFieldPaths, ", "), cfg.Name)
		set(featuresv1alpha1.ConditionReady, metav1.ConditionFalse, ReasonUnknownPaths, msg)
		set(featuresv1alpha1.ConditionStalled, metav1.ConditionTrue, ReasonUnknownPaths, msg)
	case len(status.DefaultedFieldPaths) > 0:
		msg := fmt.Sprintf("%s: the schema of %s declares a default, which the API server restores after a drop; "+
			"remove the default or the gate", strings.Join(status.DefaultedFieldPaths, ", "), cfg.Name)
		set(featuresv1alpha1.ConditionReady, metav1.ConditionFalse, ReasonDefaultedPaths, msg)
		set(featuresv1alpha1.ConditionStalled, metav1.ConditionTrue, ReasonDefaultedPaths, msg)
	default:
		ready, reason, msg, inProgress := enforced(cfg, webhook)
		set(featuresv1alpha1.ConditionReady, ready, reason, msg)
		if inProgress {
			set(featuresv1alpha1.ConditionReconciling, metav1.ConditionTrue, reason, msg)
		}
		apimeta.RemoveStatusCondition(&status.Conditions, featuresv1alpha1.ConditionStalled)
	}
}

// refuseStatus reports gates that the operator does not enforce because
// their object names one of its own CRDs: Ready False and Stalled, since only
// deleting the object helps. It makes no API calls.
func refuseStatus(cfg *featuresv1alpha1.CustomFeatureGates, refused error) {
	status := &cfg.Status
	status.FeatureGates, status.UnknownFieldPaths, status.DefaultedFieldPaths = nil, nil, nil
	status.ObservedGeneration = cfg.Generation
	msg := fmt.Sprintf("%v; no field is dropped, delete this object", refused)
	for _, kind := range []string{featuresv1alpha1.ConditionReady, featuresv1alpha1.ConditionStalled} {
		s := metav1.ConditionTrue
		if kind == featuresv1alpha1.ConditionReady {
			s = metav1.ConditionFalse
		}
		apimeta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: kind, Status: s, Reason: ReasonOperatorCRD, Message: msg, ObservedGeneration: cfg.Generation,
		})
	}
	apimeta.RemoveStatusCondition(&status.Conditions, featuresv1alpha1.ConditionReconciling)
	apimeta.RemoveStatusCondition(&status.Conditions, featuresv1alpha1.ConditionExplainNotes)
}

// enforced is the Ready condition of gates a schema can carry: whether the
// backend enforces them, and whether the operator is still at it.
func enforced(cfg *featuresv1alpha1.CustomFeatureGates, e enforcement) (ready metav1.ConditionStatus, reason, msg string, inProgress bool) {
	summary := gatesSummary(cfg)
	if e.backend == BackendPolicy {
		policies := featuregate.PolicyName(cfg.Name)
		switch {
		case len(e.forbidden) > 0:
			return metav1.ConditionFalse, ReasonPolicyForbidden, fmt.Sprintf("%s; not enforced: --featuregate-backend=policy needs rights "+
				"the operator lacks (%s); add config/components/policy-backend to the install and restart the operator, "+
				"or run it with --featuregate-backend=webhook or auto", summary, strings.Join(e.forbidden, ", ")), false
		case e.err != nil && e.probeFailed:
			return metav1.ConditionFalse, ReasonProbeFailed, fmt.Sprintf("%s; admission policies %s are written, %v", summary, policies, e.err), true
		case e.err != nil:
			return metav1.ConditionFalse, ReasonPolicyFailed,
				fmt.Sprintf("%s; writing the admission policies that enforce them failed: %v", summary, e.err), true
		case !e.loaded:
			return metav1.ConditionFalse, ReasonPolicyLoading,
				fmt.Sprintf("%s; admission policies %s are written, waiting for the API server to load them", summary, policies), true
		}
		return e.written.ready(fmt.Sprintf("%s; enforced by the API server, admission policies %s", summary, policies))
	}
	switch {
	case e.configuration == "":
		return metav1.ConditionFalse, ReasonWebhooksOff,
			fmt.Sprintf("%s; the operator runs with --disable-webhooks, so no field is dropped", summary), false
	case e.missing:
		return metav1.ConditionFalse, ReasonWebhookConfigMissing, fmt.Sprintf(
			"%s; MutatingWebhookConfiguration %s does not exist: it is part of the install (config/webhook), "+
				"and the operator does not create it; apply the install again", summary, e.configuration), true
	case !e.registered:
		return metav1.ConditionFalse, ReasonWebhookPending,
			fmt.Sprintf("%s; registering the webhook for it in MutatingWebhookConfiguration %s", summary, e.configuration), true
	case e.err != nil:
		return metav1.ConditionFalse, ReasonWebhookProbeFailed,
			fmt.Sprintf("%s; registered in MutatingWebhookConfiguration %s, %v", summary, e.configuration, e.err), true
	case !e.loaded:
		return metav1.ConditionFalse, ReasonWebhookLoading, fmt.Sprintf(
			"%s; registered in MutatingWebhookConfiguration %s, waiting for the API server to call the webhook through it", summary, e.configuration), true
	}
	return e.written.ready(fmt.Sprintf("%s; enforced by the webhook, MutatingWebhookConfiguration %s", summary, e.configuration))
}

// ready is the Ready condition of gates in force, as said by enforced:
// True once a write of the gated kind is admitted.
func (w writeAdmission) ready(enforced string) (metav1.ConditionStatus, string, string, bool) {
	switch {
	case !w.made && w.skipped != "":
		return metav1.ConditionTrue, ReasonGatesEvaluated, enforced + "; " + w.skipped, false
	case !w.made:
		return metav1.ConditionTrue, ReasonGatesEvaluated, enforced, false
	case w.answer == featuregate.WriteProbeForbidden:
		return metav1.ConditionFalse, ReasonAdmissionProbeRefused, fmt.Sprintf("%s; whether writes of %s are admitted is unknown: "+
			"%s may not create them in namespace %s (config/rbac grants it that), %v", enforced, w.resource, ProbeUser, w.namespace, w.err), true
	case w.answer == featuregate.WriteNotAdmitted:
		return metav1.ConditionFalse, ReasonAwaitingAdmission, fmt.Sprintf("%s; a dry-run create of %s that sets the gated fields "+
			"is not admitted yet: %v", enforced, w.resource, w.err), true
	}
	return metav1.ConditionTrue, ReasonGatesEvaluated, enforced + "; writes of " + w.resource + " are admitted", false
}

// gatesSummary counts the enabled gates, from the status computeStatus filled.
func gatesSummary(cfg *featuresv1alpha1.CustomFeatureGates) string {
	on := 0
	for _, g := range cfg.Status.FeatureGates {
		if *g.Enabled {
			on++
		}
	}
	return fmt.Sprintf("%d of %d gates enabled over fields of %s", on, len(cfg.Status.FeatureGates), cfg.Name)
}

// storageVersion returns the CRD's storage version (nil for a nil CRD or
// none): gates are checked against its schema, as the design asks
// (featuregate.TargetOf names it for the backends).
func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinitionVersion {
	if crd == nil {
		return nil
	}
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Storage {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

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

// Package featuregates reconciles CustomFeatureGates: it evaluates every gate,
// checks the gated paths against the target CRD's schema, and reports both in
// status; it registers and serves the webhook that drops the fields of
// disabled gates.
package featuregates

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// Condition types and reasons.
const (
	ConditionReady       = "Ready"
	ConditionStalled     = "Stalled"
	ConditionReconciling = "Reconciling"

	ReasonGatesEvaluated = "GatesEvaluated"
	ReasonCRDNotFound    = "CRDNotFound"
	ReasonUnknownPaths   = "UnknownFieldPaths"
	ReasonDefaultedPaths = "DefaultedFieldPaths"
	ReasonWebhookPending = "WebhookPending"
	ReasonWebhooksOff    = "WebhooksDisabled"
)

// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// Reconciler keeps the status of CustomFeatureGates objects.
type Reconciler struct {
	Client client.Client
	// Reader reads CRDs uncached: their schemas are large, and only the gated ones matter.
	Reader   client.Reader
	Recorder events.EventRecorder
	Options
}

// Options configure the CustomFeatureGates reconciler.
type Options struct {
	// WebhookConfiguration is the MutatingWebhookConfiguration the Registrar
	// writes; empty when the operator runs without webhooks, and no field is
	// dropped.
	WebhookConfiguration string
}

// webhookState is what status says of the webhook entry of one object.
type webhookState struct {
	configuration string // empty: webhooks are off
	registered    bool
}

// Reconcile evaluates one CustomFeatureGates object.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cfg := &featuresv1alpha1.CustomFeatureGates{}
	if err := r.Client.Get(ctx, req.NamespacedName, cfg); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	base := cfg.DeepCopy()

	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := r.Reader.Get(ctx, client.ObjectKey{Name: cfg.Name}, crd)
	if client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, fmt.Errorf("reading CustomResourceDefinition %s: %w", cfg.Name, err)
	}
	if err != nil {
		crd = nil
	}
	webhook, err := r.webhookState(ctx, cfg.Name)
	if err != nil {
		return reconcile.Result{}, err
	}
	computeStatus(cfg, crd, webhook)

	if equality.Semantic.DeepEqual(base.Status, cfg.Status) {
		return reconcile.Result{}, nil
	}
	if ready := apimeta.FindStatusCondition(cfg.Status.Conditions, ConditionReady); ready != nil {
		old := apimeta.FindStatusCondition(base.Status.Conditions, ConditionReady)
		if old == nil || old.Reason != ready.Reason || old.Message != ready.Message {
			eventType := "Normal"
			if ready.Status != metav1.ConditionTrue {
				eventType = "Warning"
			}
			r.Recorder.Eventf(cfg, nil, eventType, ready.Reason, "Evaluate", "%s", ready.Message)
		}
	}
	if err := r.Client.Status().Patch(ctx, cfg, client.MergeFrom(base)); err != nil {
		return reconcile.Result{}, fmt.Errorf("patching status: %w", err)
	}
	return reconcile.Result{}, nil
}

// webhookState reports whether the webhook configuration has an entry for the
// CRD named crd.
func (r *Reconciler) webhookState(ctx context.Context, crd string) (webhookState, error) {
	state := webhookState{configuration: r.WebhookConfiguration}
	if state.configuration == "" {
		return state, nil
	}
	config := &admissionv1.MutatingWebhookConfiguration{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: state.configuration}, config); err != nil {
		return state, client.IgnoreNotFound(err)
	}
	state.registered = slices.ContainsFunc(config.Webhooks, func(wh admissionv1.MutatingWebhook) bool { return wh.Name == crd })
	return state, nil
}

// computeStatus fills in the status from the gates, the target CRD (nil when
// it does not exist) and its webhook entry. It makes no API calls.
func computeStatus(cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition, webhook webhookState) {
	status := &cfg.Status
	status.FeatureGates = nil
	var paths []string
	for _, g := range cfg.Spec.FeatureGates {
		enabled, reason := featuregate.Effective(toGate(g))
		status.FeatureGates = append(status.FeatureGates, featuresv1alpha1.FeatureGateStatus{
			Name: g.Name, Enabled: ptr.To(enabled), Reason: reason,
		})
		paths = append(paths, g.FieldPaths...)
	}
	status.ObservedGeneration = cfg.Generation
	set := func(kind string, s metav1.ConditionStatus, reason, msg string) {
		apimeta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: kind, Status: s, Reason: reason, Message: msg, ObservedGeneration: cfg.Generation,
		})
	}

	schema := storageSchema(crd)
	if schema == nil {
		status.UnknownFieldPaths, status.DefaultedFieldPaths = nil, nil
		msg := fmt.Sprintf("CustomResourceDefinition %s does not exist (or has no schema); the gates take effect when it does", cfg.Name)
		set(ConditionReady, metav1.ConditionFalse, ReasonCRDNotFound, msg)
		set(ConditionReconciling, metav1.ConditionTrue, ReasonCRDNotFound, msg)
		apimeta.RemoveStatusCondition(&status.Conditions, ConditionStalled)
		return
	}
	apimeta.RemoveStatusCondition(&status.Conditions, ConditionReconciling)
	status.UnknownFieldPaths, status.DefaultedFieldPaths = featuregate.CheckPaths(schema, paths)
	switch {
	case len(status.UnknownFieldPaths) > 0:
		msg := fmt.Sprintf("%s: not in the schema of %s; fix the paths", strings.Join(status.UnknownFieldPaths, ", "), cfg.Name)
		set(ConditionReady, metav1.ConditionFalse, ReasonUnknownPaths, msg)
		set(ConditionStalled, metav1.ConditionTrue, ReasonUnknownPaths, msg)
	case len(status.DefaultedFieldPaths) > 0:
		msg := fmt.Sprintf("%s: the schema of %s declares a default, which the API server restores after a drop; "+
			"remove the default or the gate", strings.Join(status.DefaultedFieldPaths, ", "), cfg.Name)
		set(ConditionReady, metav1.ConditionFalse, ReasonDefaultedPaths, msg)
		set(ConditionStalled, metav1.ConditionTrue, ReasonDefaultedPaths, msg)
	case webhook.configuration == "":
		msg := fmt.Sprintf("%s; the operator runs with --disable-webhooks, so no field is dropped", gatesSummary(cfg))
		set(ConditionReady, metav1.ConditionFalse, ReasonWebhooksOff, msg)
		apimeta.RemoveStatusCondition(&status.Conditions, ConditionStalled)
	case !webhook.registered:
		msg := fmt.Sprintf("%s; registering the webhook for it in MutatingWebhookConfiguration %s", gatesSummary(cfg), webhook.configuration)
		set(ConditionReady, metav1.ConditionFalse, ReasonWebhookPending, msg)
		set(ConditionReconciling, metav1.ConditionTrue, ReasonWebhookPending, msg)
		apimeta.RemoveStatusCondition(&status.Conditions, ConditionStalled)
	default:
		set(ConditionReady, metav1.ConditionTrue, ReasonGatesEvaluated, gatesSummary(cfg))
		apimeta.RemoveStatusCondition(&status.Conditions, ConditionStalled)
	}
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

// storageSchema returns the schema of the CRD's storage version: gates are
// checked on the storage version, as the design asks.
func storageSchema(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.JSONSchemaProps {
	if crd == nil {
		return nil
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage && v.Schema != nil {
			return v.Schema.OpenAPIV3Schema
		}
	}
	return nil
}

func toGate(g featuresv1alpha1.FeatureGate) featuregate.Gate {
	return featuregate.Gate{
		Name: g.Name, PreRelease: string(g.PreRelease), Default: g.Default, Enabled: g.Enabled,
		FieldPaths: g.FieldPaths, DeprecationWarning: g.DeprecationWarning,
	}
}

// SetupWithManager adds the reconciler to mgr. A CRD's changes reach the
// CustomFeatureGates object of the same name; the webhook configuration's
// reach them all.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	r := &Reconciler{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("applyset-operator"), Options: opts}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("customfeaturegates").
		For(&featuresv1alpha1.CustomFeatureGates{}).
		WatchesMetadata(&apiextensionsv1.CustomResourceDefinition{}, handler.EnqueueRequestsFromMapFunc(
			func(_ context.Context, crd client.Object) []reconcile.Request {
				return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: crd.GetName()}}}
			}))
	if opts.WebhookConfiguration != "" {
		b = b.Watches(&admissionv1.MutatingWebhookConfiguration{}, handler.EnqueueRequestsFromMapFunc(r.all),
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
				return o.GetName() == opts.WebhookConfiguration
			})))
	}
	return b.Complete(r)
}

// all lists every CustomFeatureGates object for reconciling.
func (r *Reconciler) all(ctx context.Context, _ client.Object) []reconcile.Request {
	list := &featuresv1alpha1.CustomFeatureGatesList{}
	if err := r.Client.List(ctx, list); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing CustomFeatureGates after a webhook configuration change")
		return nil
	}
	requests := make([]reconcile.Request, 0, len(list.Items))
	for _, cfg := range list.Items {
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&cfg)})
	}
	return requests
}

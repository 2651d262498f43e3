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
	"errors"
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/text"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// maxEventNote is the longest note of an Event the API server takes.
const maxEventNote = 1024

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
	// Backend enforces the gates: BackendWebhook (the default) or
	// BackendPolicy, which needs an API server that serves
	// MutatingAdmissionPolicies and no webhook.
	Backend string
}

// Reconcile evaluates one CustomFeatureGates object.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cfg := &featuresv1alpha1.CustomFeatureGates{}
	if err := r.Client.Get(ctx, req.NamespacedName, cfg); err != nil {
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		if err := r.stripNotesOf(ctx, req.Name); err != nil {
			return reconcile.Result{}, err
		}
		if r.Backend == BackendPolicy {
			return reconcile.Result{}, r.removePolicies(ctx, req.Name)
		}
		return reconcile.Result{}, nil
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
	state, err := r.enforce(ctx, cfg, crd)
	if err != nil {
		return reconcile.Result{}, err
	}
	notes := r.writeNotes(ctx, cfg, crd)
	computeStatus(cfg, crd, state)
	r.setExplainCondition(cfg, notes)
	// Errors bring the retry; status has reported them.
	err = errors.Join(state.err, notes.err)

	result := reconcile.Result{RequeueAfter: state.recheck()}
	if equality.Semantic.DeepEqual(base.Status, cfg.Status) {
		return result, err
	}
	if ready := apimeta.FindStatusCondition(cfg.Status.Conditions, featuresv1alpha1.ConditionReady); ready != nil {
		old := apimeta.FindStatusCondition(base.Status.Conditions, featuresv1alpha1.ConditionReady)
		if old == nil || old.Reason != ready.Reason || old.Message != ready.Message {
			eventType := "Normal"
			if ready.Status != metav1.ConditionTrue {
				eventType = "Warning"
			}
			// The API server refuses a longer note, and the Event would be lost.
			r.Recorder.Eventf(cfg, nil, eventType, ready.Reason, "Evaluate", "%s", text.Truncate(ready.Message, maxEventNote))
		}
	}
	if err := r.Client.Status().Patch(ctx, cfg, client.MergeFrom(base)); err != nil {
		return reconcile.Result{}, fmt.Errorf("patching status: %w", err)
	}
	return result, err
}

// webhookLoaded asks the API server whether it calls the webhook through
// entry as written: a dry-run patch of cfg's status that carries the probe
// annotation with the entry's revision reaches the webhook only through that
// revision of the entry, and the webhook refuses it.
func (r *Reconciler) webhookLoaded(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, entry featuregate.WebhookEntry) (bool, error) {
	err := r.Client.Status().Patch(ctx, cfg.DeepCopy(), client.RawPatch(types.MergePatchType, featuregate.ProbePatch(entry.Revision)), client.DryRunAll)
	return featuregate.ReadWebhookProbe(err, cfg.Name)
}

// webhookState reports whether the webhook configuration has an entry for the
// CRD named crd.
func (r *Reconciler) webhookState(ctx context.Context, crd string) (enforcement, error) {
	state := enforcement{backend: BackendWebhook, configuration: r.WebhookConfiguration}
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

// SetupWithManager adds the reconciler to mgr. A CRD's changes reach the
// CustomFeatureGates object of the same name; the webhook configuration's
// reach them all.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	r := &Reconciler{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder(identity.EventReporter), Options: opts}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("customfeaturegates").
		For(&featuresv1alpha1.CustomFeatureGates{}).
		WatchesMetadata(&apiextensionsv1.CustomResourceDefinition{}, handler.EnqueueRequestsFromMapFunc(
			func(_ context.Context, crd client.Object) []reconcile.Request {
				return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: crd.GetName()}}}
			}))
	if opts.Backend == BackendPolicy {
		// A policy deleted or changed by hand is written again.
		b = b.Owns(&admissionv1.MutatingAdmissionPolicy{}).Owns(&admissionv1.MutatingAdmissionPolicyBinding{}).
			Owns(&admissionv1.ValidatingAdmissionPolicy{}).Owns(&admissionv1.ValidatingAdmissionPolicyBinding{})
	} else if opts.WebhookConfiguration != "" {
		b = b.Watches(&admissionv1.MutatingWebhookConfiguration{}, handler.EnqueueRequestsFromMapFunc(r.all),
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
				return o.GetName() == opts.WebhookConfiguration
			})))
	}
	return b.Complete(r)
}

// enforce has the backend put cfg's gates in force on crd, and says how
// that stands; an error is for what status cannot report.
func (r *Reconciler) enforce(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition) (
	enforcement, error) {
	if r.Backend == BackendPolicy {
		// Status reports a failed write or probe; the error brings the retry.
		policies, err := r.applyPolicies(ctx, cfg, crd)
		state := enforcement{backend: BackendPolicy, err: err, registered: err == nil}
		if err == nil && policies.Mutating != nil {
			if state.loaded, err = r.policyLoaded(ctx, cfg, policies); err != nil {
				state.err = fmt.Errorf("asking the API server whether it runs them: %w", err)
				state.probeFailed = true
			}
		}
		return state, nil
	}
	state, err := r.webhookState(ctx, cfg.Name)
	if err != nil {
		return state, err
	}
	if target, ok := featuregate.TargetOf(crd); ok && state.registered {
		entry := featuregate.WebhookEntryFor(target, featuregate.FromAPI(cfg.Spec.FeatureGates))
		if state.loaded, err = r.webhookLoaded(ctx, cfg, entry); err != nil {
			state.err = fmt.Errorf("asking the API server whether it calls the webhook: %w", err)
			state.probeFailed = true
		}
	}
	if err := r.removeLeftoverPolicies(ctx, cfg.Name); err != nil {
		return state, fmt.Errorf("removing the policies of the policy backend: %w", err)
	}
	return state, nil
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

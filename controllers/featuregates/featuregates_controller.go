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

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
	"github.com/applyset-operator/applyset-operator/pkg/text"
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

	// writes asks whether writes of a gated kind are admitted; nil asks not.
	writes *writeProbe
}

// Options configure the CustomFeatureGates reconciler.
type Options struct {
	// WebhookConfiguration is the MutatingWebhookConfiguration the Registrar
	// writes; empty when the operator runs without webhooks, and no field is
	// dropped.
	WebhookConfiguration string
	// Backend enforces the gates: BackendWebhook (the default) or
	// BackendPolicy.
	Backend Backend
	// MissingPolicyRights are the PolicyRights the operator lacks, as
	// MissingPolicyRights found them at start. The policy backend needs them
	// all: without them it writes nothing and status says what is missing.
	// The webhook backend removes the policies an earlier run left only with
	// them.
	MissingPolicyRights []string
	// ProbeNamespace is where writes of namespaced gated kinds are probed
	// (as ProbeUser, dry runs only); DefaultProbeNamespace when empty.
	ProbeNamespace string
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
		if r.writes != nil {
			r.writes.forget(req.Name)
		}
		return reconcile.Result{}, r.enforcer().forget(ctx, req.Name)
	}
	base := cfg.DeepCopy()

	if refused := featuregate.CheckTarget(cfg.Name); refused != nil {
		// The CRD refuses such a name; an object stored before its rule is
		// not acted on: whatever enforced its gates goes, and status says why.
		if err := errors.Join(r.removeLeftoverPolicies(ctx, cfg.Name), r.stripNotesOf(ctx, cfg.Name)); err != nil {
			return reconcile.Result{}, err
		}
		refuseStatus(cfg, refused)
		return r.report(ctx, base, cfg, reconcile.Result{}, nil)
	}

	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := r.Reader.Get(ctx, client.ObjectKey{Name: cfg.Name}, crd)
	if client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, fmt.Errorf("reading CustomResourceDefinition %s: %w", cfg.Name, err)
	}
	if err != nil {
		crd = nil
	}
	state, err := r.enforcer().enforce(ctx, cfg, crd)
	if err != nil {
		return reconcile.Result{}, err
	}
	if r.writes != nil && crd != nil && state.inForce() {
		state.written = r.writes.check(ctx, cfg, crd, r.Backend)
	}
	notes := r.writeNotes(ctx, cfg, crd)
	computeStatus(cfg, crd, state)
	r.setExplainCondition(cfg, notes)
	// Errors bring the retry; status has reported them.
	err = errors.Join(state.err, notes.err)

	return r.report(ctx, base, cfg, reconcile.Result{RequeueAfter: state.recheck()}, err)
}

// report writes cfg's status where it differs from base's, with an Event
// when the Ready condition changed, and returns result and err.
func (r *Reconciler) report(ctx context.Context, base, cfg *featuresv1alpha1.CustomFeatureGates, result reconcile.Result, err error) (
	reconcile.Result, error) {
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

// SetupWithManager adds the reconciler to mgr. A CRD's changes reach the
// CustomFeatureGates object of the same name; the webhook configuration's
// reach them all.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	r := &Reconciler{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder(identity.EventReporter), Options: opts}
	var err error
	if r.writes, err = newWriteProbe(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()},
		opts.ProbeNamespace); err != nil {
		return err
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("customfeaturegates").
		For(&featuresv1alpha1.CustomFeatureGates{}).
		WatchesMetadata(&apiextensionsv1.CustomResourceDefinition{}, handler.EnqueueRequestsFromMapFunc(
			func(_ context.Context, crd client.Object) []reconcile.Request {
				return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: crd.GetName()}}}
			}))
	return r.enforcer().watch(b).Complete(r)
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

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
	"context"
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	admissionv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

const (
	// DefaultConfigurationName is the MutatingWebhookConfiguration that holds
	// one entry per CustomFeatureGates object.
	DefaultConfigurationName = "applyset-operator-featuregates"

	// webhookTimeoutSeconds is short: the handler reads only the cache, and a
	// slow webhook holds up every write of the gated resources.
	webhookTimeoutSeconds = 5
)

// The operator writes only its own MutatingWebhookConfiguration, which the
// install ships (config/webhook), by name: its entries, caBundle included, by
// server-side apply (patch). It never creates it.
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations,verbs=list;watch
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations,verbs=patch,resourceNames=applyset-operator-featuregates
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get

// Registrar keeps the operator's MutatingWebhookConfiguration in step with the
// CustomFeatureGates objects: one entry per gated CRD that exists.
type Registrar struct {
	Client client.Client
	// Reader reads CRDs uncached.
	Reader client.Reader
	// Recorder, when set, tells each CustomFeatureGates object why its entry
	// could not be written.
	Recorder      events.EventRecorder
	Configuration string
	Endpoint      webhooks.Endpoint
	// Backend enforces the gates; the configuration holds entries only for
	// BackendWebhook (the default).
	Backend Backend
}

// Reconcile registers an entry for every CustomFeatureGates object whose CRD
// exists, and removes the entries of the others.
func (r *Registrar) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	list := &featuresv1alpha1.CustomFeatureGatesList{}
	if err := r.Client.List(ctx, list); err != nil {
		return reconcile.Result{}, fmt.Errorf("listing CustomFeatureGates: %w", err)
	}
	if err := r.register(ctx, list.Items); err != nil {
		if r.Recorder != nil {
			for i := range list.Items {
				r.Recorder.Eventf(&list.Items[i], nil, "Warning", "WebhookRegistrationFailed", "Register", "%v", err)
			}
		}
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// register writes the configuration with one entry per object of gates whose
// CRD exists; it does not create the configuration, which the install ships.
func (r *Registrar) register(ctx context.Context, gates []featuresv1alpha1.CustomFeatureGates) error {
	if r.Endpoint.Pending() {
		log.FromContext(ctx).V(1).Info("Waiting for the webhook certificate before writing the entries")
		return nil // its CA's arrival queues the configuration again
	}
	desired, err := r.desiredWebhooks(ctx, gates)
	if err != nil {
		return err
	}
	// The apply holds every entry the operator wants, each with its
	// caBundle: server-side apply removes the ones it leaves out.
	config := admissionv1ac.MutatingWebhookConfiguration(r.Configuration).WithWebhooks(desired...)
	if owner, err := r.Endpoint.Owner(ctx, r.Reader); err != nil {
		return err
	} else if owner != nil {
		config.WithOwnerReferences(owner)
	}
	// The install ships the configuration; the operator may not create it.
	existing := &admissionv1.MutatingWebhookConfiguration{}
	existing.Name = r.Configuration
	if err := webhooks.RequireShipped(ctx, r.Client, existing, "MutatingWebhookConfiguration"); err != nil {
		return err
	}
	if err := r.Client.Apply(ctx, config, client.FieldOwner(identity.WebhooksFieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying MutatingWebhookConfiguration %s: %w", r.Configuration, err)
	}
	return nil
}

// desiredWebhooks returns one entry per object of gates whose CRD exists,
// sorted by name.
func (r *Registrar) desiredWebhooks(ctx context.Context, gates []featuresv1alpha1.CustomFeatureGates) ([]*admissionv1ac.MutatingWebhookApplyConfiguration, error) {
	if !r.Backend.servesWebhook() {
		return nil, nil
	}
	var entries []*admissionv1ac.MutatingWebhookApplyConfiguration
	for _, cfg := range gates {
		if !cfg.DeletionTimestamp.IsZero() || featuregate.CheckTarget(cfg.Name) != nil {
			continue // the reconciler reports the operator's own CRDs as refused
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := r.Reader.Get(ctx, client.ObjectKey{Name: cfg.Name}, crd); err != nil {
			if client.IgnoreNotFound(err) == nil {
				continue // registered when the CRD arrives
			}
			return nil, fmt.Errorf("reading CustomResourceDefinition %s: %w", cfg.Name, err)
		}
		if wh := webhookFor(&cfg, crd, r.Endpoint); wh != nil {
			entries = append(entries, wh)
		}
	}
	slices.SortFunc(entries, func(a, b *admissionv1ac.MutatingWebhookApplyConfiguration) int {
		return strings.Compare(*a.Name, *b.Name)
	})
	return entries, nil
}

// webhookBackend enforces the gates with the operator's mutating webhook,
// through the entries the Registrar writes.
type webhookBackend struct{ r *Reconciler }

// enforce says whether the CRD's entry is registered and the API server calls
// the webhook through it; it also removes what an earlier policy-backend run left.
func (w webhookBackend) enforce(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition) (
	enforcement, error) {
	state, err := w.state(ctx, cfg.Name)
	if err != nil {
		return state, err
	}
	if target, ok := featuregate.TargetOf(crd); ok && state.registered {
		entry := featuregate.WebhookEntryFor(target, featuregate.FromAPI(cfg.Spec.FeatureGates))
		if state.loaded, err = w.loaded(ctx, cfg, entry); err != nil {
			state.err = fmt.Errorf("asking the API server whether it calls the webhook: %w", err)
			state.probeFailed = true
		}
	}
	if err := w.r.removeLeftoverPolicies(ctx, cfg.Name); err != nil {
		return state, fmt.Errorf("removing the policies of the policy backend: %w", err)
	}
	return state, nil
}

// forget has nothing to do: the Registrar drops the entry of a deleted object.
func (webhookBackend) forget(context.Context, string) error { return nil }

// watch has a change of the webhook configuration reach every object.
func (w webhookBackend) watch(b *builder.Builder) *builder.Builder {
	name := w.r.WebhookConfiguration
	if name == "" {
		return b
	}
	return b.Watches(&admissionv1.MutatingWebhookConfiguration{}, handler.EnqueueRequestsFromMapFunc(w.r.all),
		builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == name })))
}

// state reports whether the webhook configuration has an entry for the CRD
// named crd.
func (w webhookBackend) state(ctx context.Context, crd string) (enforcement, error) {
	state := enforcement{backend: BackendWebhook, configuration: w.r.WebhookConfiguration}
	if state.configuration == "" {
		return state, nil
	}
	config := &admissionv1.MutatingWebhookConfiguration{}
	if err := w.r.Client.Get(ctx, client.ObjectKey{Name: state.configuration}, config); err != nil {
		state.missing = apierrors.IsNotFound(err)
		return state, client.IgnoreNotFound(err)
	}
	state.registered = slices.ContainsFunc(config.Webhooks, func(wh admissionv1.MutatingWebhook) bool { return wh.Name == crd })
	return state, nil
}

// loaded asks the API server whether it calls the webhook through entry as
// written: a dry-run patch of cfg's status that carries the probe annotation
// with the entry's revision reaches the webhook only through that revision of
// the entry, and the webhook refuses it.
func (w webhookBackend) loaded(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, entry featuregate.WebhookEntry) (bool, error) {
	err := w.r.Client.Status().Patch(ctx, cfg.DeepCopy(), client.RawPatch(types.MergePatchType, featuregate.ProbePatch(entry.Revision)), client.DryRunAll)
	return featuregate.ReadWebhookProbe(err, cfg.Name)
}

// webhookFor is the entry of one gated CRD (featuregate.WebhookEntryFor):
// its resources and their status, for the storage version (requests in other
// versions are converted to it), and the probe behind Ready. It returns nil
// while the CRD has no storage version.
func webhookFor(cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition,
	ep webhooks.Endpoint) *admissionv1ac.MutatingWebhookApplyConfiguration {
	target, ok := featuregate.TargetOf(crd)
	if !ok {
		return nil
	}
	entry := featuregate.WebhookEntryFor(target, featuregate.FromAPI(cfg.Spec.FeatureGates))
	wh := admissionv1ac.MutatingWebhook().
		WithName(crd.Name).
		WithClientConfig(ep.ClientConfig(WebhookPath)).
		WithMatchPolicy(admissionv1.Equivalent).
		WithFailurePolicy(admissionv1.Fail).
		WithSideEffects(admissionv1.SideEffectClassNone).
		// Another webhook may set a gated field after this one has run.
		WithReinvocationPolicy(admissionv1.IfNeededReinvocationPolicy).
		WithTimeoutSeconds(webhookTimeoutSeconds).
		WithAdmissionReviewVersions("v1")
	for _, rule := range entry.Rules {
		wh.WithRules(admissionv1ac.RuleWithOperations().
			WithOperations(rule.Operations...).
			WithAPIGroups(rule.APIGroups...).
			WithAPIVersions(rule.APIVersions...).
			WithResources(rule.Resources...))
	}
	for _, c := range entry.Conditions {
		wh.WithMatchConditions(admissionv1ac.MatchCondition().WithName(c.Name).WithExpression(c.Expression))
	}
	return wh
}

// SetupWithManager adds the registrar to mgr. Every change of a
// CustomFeatureGates object, of a gated CRD, or of the configuration itself
// reconciles the one configuration.
func (r *Registrar) SetupWithManager(mgr ctrl.Manager) error {
	if r.Configuration == "" {
		r.Configuration = DefaultConfigurationName
	}
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorder(identity.EventReporter)
	}
	key := []reconcile.Request{{NamespacedName: client.ObjectKey{Name: r.Configuration}}}
	toKey := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request { return key })
	cache := mgr.GetCache()
	return r.Endpoint.WatchCA(ctrl.NewControllerManagedBy(mgr), key[0]).
		Named("featuregate-webhooks").
		Watches(&featuresv1alpha1.CustomFeatureGates{}, toKey).
		WatchesMetadata(&apiextensionsv1.CustomResourceDefinition{}, handler.EnqueueRequestsFromMapFunc(
			func(ctx context.Context, crd client.Object) []reconcile.Request {
				err := cache.Get(ctx, client.ObjectKey{Name: crd.GetName()}, &featuresv1alpha1.CustomFeatureGates{})
				if err != nil {
					return nil // not gated, or the gates' own event reconciles
				}
				return key
			})).
		Watches(&admissionv1.MutatingWebhookConfiguration{}, toKey, builder.WithPredicates(
			predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == r.Configuration }))).
		Complete(r)
}

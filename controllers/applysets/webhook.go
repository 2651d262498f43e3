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

package applysets

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	admissionv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
)

// As the feature gates' configuration, the ValidatingWebhookConfiguration is
// shipped by the install and written by name only.
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,verbs=list;watch
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,verbs=patch,resourceNames=applyset-operator-applysets

const (
	// validationPath is where the webhook that checks sets is served.
	validationPath = "/applysets/validate"
	// DefaultValidationConfiguration is the ValidatingWebhookConfiguration of that webhook.
	DefaultValidationConfiguration = "applyset-operator-applysets"
)

// Validator refuses a set whose health checks or dependsOn readyExprs do
// not compile, or whose delivery windows do not parse (a cron expression,
// an unknown time zone: CEL cannot read the time zone database): the
// mistake is told at kubectl apply, not found later by the reconcile. The
// rules CRD validation can say stay in the CRD.
type Validator struct {
	decoder admission.Decoder
}

// Handle checks one create or update of an ApplySet or ClusterApplySet. It has
// no side effects, so dry-run requests are judged as real ones.
func (v *Validator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	var set applyv1alpha1.Set = &applyv1alpha1.ApplySet{}
	if req.Kind.Kind == string(applyv1alpha1.SetKindClusterApplySet) {
		set = &applyv1alpha1.ClusterApplySet{}
	}
	if err := v.decoder.Decode(req, set); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if _, err := setrun.Checker(set.GetCommonSpec().HealthChecks, 0); err != nil {
		return admission.Denied(err.Error())
	}
	if _, err := readyExprs(set.GetCommonSpec().DependsOn); err != nil {
		return admission.Denied(err.Error())
	}
	if _, err := parseWindows(set.GetCommonSpec().Windows); err != nil {
		return admission.Denied("spec.windows: " + err.Error())
	}
	return admission.Allowed("")
}

// Registrar keeps the configurations of the sets' webhooks in place,
// pointing at the manager's webhook server: the ValidatingWebhookConfiguration
// of the Validator (Configuration) and the MutatingWebhookConfiguration of
// the approvers (ApproversConfiguration, approvers.go).
type Registrar struct {
	Client client.Client
	// Reader reads the webhook Service's Namespace uncached.
	Reader                                client.Reader
	Configuration, ApproversConfiguration string
	Endpoint                              webhooks.Endpoint
}

// Reconcile applies the configurations, which the install ships: a missing
// one is an error, retried, not created. The Validator's entry fails open:
// while no replica answers, sets are admitted, and a bad expression stalls
// the set at reconcile instead. The approvers' fails closed.
func (r *Registrar) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	if r.Endpoint.Pending() {
		log.FromContext(ctx).V(1).Info("Waiting for the webhook certificate before writing the entry")
		return reconcile.Result{}, nil // its CA's arrival queues the configuration again
	}
	entry := admissionv1ac.ValidatingWebhook().
		WithName("healthchecks.apply.applyset.dev").
		WithClientConfig(r.Endpoint.ClientConfig(validationPath)).
		WithRules(admissionv1ac.RuleWithOperations().
			WithOperations(admissionregv1.Create, admissionregv1.Update).
			WithAPIGroups(applyv1alpha1.GroupVersion.Group).
			WithAPIVersions(applyv1alpha1.GroupVersion.Version).
			WithResources("applysets", "clusterapplysets")).
		WithMatchConditions(judgedFieldsChanged...).
		WithMatchPolicy(admissionregv1.Equivalent).
		WithFailurePolicy(admissionregv1.Ignore).
		WithSideEffects(admissionregv1.SideEffectClassNone).
		WithTimeoutSeconds(5).
		WithAdmissionReviewVersions("v1")
	config := admissionv1ac.ValidatingWebhookConfiguration(r.Configuration).WithWebhooks(entry)
	owner, err := r.Endpoint.Owner(ctx, r.Reader)
	if err != nil {
		return reconcile.Result{}, err
	}
	if owner != nil {
		config.WithOwnerReferences(owner)
	}
	// The install ships the configuration; the operator may not create it.
	existing := &admissionregv1.ValidatingWebhookConfiguration{}
	existing.Name = r.Configuration
	if err := webhooks.RequireShipped(ctx, r.Client, existing, "ValidatingWebhookConfiguration"); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.Client.Apply(ctx, config, client.FieldOwner(identity.WebhooksFieldManager), client.ForceOwnership); err != nil {
		return reconcile.Result{}, fmt.Errorf("applying ValidatingWebhookConfiguration %s: %w", r.Configuration, err)
	}
	return reconcile.Result{}, r.applyApprovers(ctx, owner)
}

// judgedFieldsChanged sends the webhook only the writes that bring CEL
// expressions (health checks, dependsOn readyExprs) or windows it has not
// judged: most sets declare none, and the operator's own writes of a set's
// metadata leave its spec, and so its generation, as it was. The API server
// raises the generation before it calls the webhook.
var judgedFieldsChanged = []*admissionv1ac.MatchConditionApplyConfiguration{
	admissionv1ac.MatchCondition().WithName("declares-expressions").
		WithExpression("object.?spec.?healthChecks.orValue([]).size() > 0 || " +
			"object.?spec.?dependsOn.orValue([]).exists(d, has(d.readyExpr)) || " +
			"object.?spec.?windows.orValue([]).size() > 0"),
	admissionv1ac.MatchCondition().WithName("expressions-changed").
		WithExpression("request.operation != 'UPDATE' || object.metadata.generation != oldObject.metadata.generation && " +
			"(object.?spec.?healthChecks.orValue([]) != oldObject.?spec.?healthChecks.orValue([]) || " +
			"object.?spec.?dependsOn.orValue([]) != oldObject.?spec.?dependsOn.orValue([]) || " +
			"object.?spec.?windows.orValue([]) != oldObject.?spec.?windows.orValue([]))"),
}

// SetupWithManager adds the registrar to mgr: it applies the
// configurations at start, and again whenever someone changes one.
func (r *Registrar) SetupWithManager(mgr ctrl.Manager) error {
	if r.Configuration == "" {
		r.Configuration = DefaultValidationConfiguration
	}
	if r.ApproversConfiguration == "" {
		r.ApproversConfiguration = DefaultApproversConfiguration
	}
	key := reconcile.Request{NamespacedName: client.ObjectKey{Name: r.Configuration}}
	return r.Endpoint.WatchCA(ctrl.NewControllerManagedBy(mgr), key).
		Named("applyset-validation-webhook").
		WatchesRawSource(source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
			q.Add(key)
			return nil
		})).
		Watches(&admissionregv1.ValidatingWebhookConfiguration{},
			handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{key} }),
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == r.Configuration }))).
		Watches(&admissionregv1.MutatingWebhookConfiguration{},
			handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{key} }),
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == r.ApproversConfiguration }))).
		Complete(r)
}

// SetupWebhook serves the Validator at validationPath and the approvers at
// approversPath on server, and adds registrar to mgr. The manager serves
// them on its own server; tests pass mgr.GetWebhookServer().
func SetupWebhook(mgr ctrl.Manager, server webhook.Server, registrar *Registrar) error {
	server.Register(validationPath, &webhook.Admission{Handler: &Validator{decoder: admission.NewDecoder(mgr.GetScheme())}})
	server.Register(approversPath, &webhook.Admission{Handler: approvers{}})
	return registrar.SetupWithManager(mgr)
}

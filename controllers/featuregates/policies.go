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
	"reflect"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// The rights the policy backend needs are not in config/rbac: whoever may
// create a MutatingAdmissionPolicy may rewrite any request the API server
// admits (the API server runs no admission on the policies themselves, and
// the policies' names follow the gated CRDs, so RBAC cannot list them ahead),
// which is as much as cluster-admin.
// The opt-in component config/components/policy-backend grants them
// (PolicyRights); without it the operator uses the webhook backend.

// PolicyRights are the rights on admission policies the policy backend
// needs: it watches the policies it owns, applies them (patch, which creates
// them) and deletes those the gates no longer need. The webhook backend
// needs get and delete of them to remove what an earlier policy-backend run
// left.
func PolicyRights() []authorizationv1.ResourceAttributes {
	resources := []string{"mutatingadmissionpolicies", "mutatingadmissionpolicybindings",
		"validatingadmissionpolicies", "validatingadmissionpolicybindings"}
	verbs := []string{"get", "list", "watch", "create", "patch", "delete"}
	rights := make([]authorizationv1.ResourceAttributes, 0, len(resources)*len(verbs))
	for _, resource := range resources {
		for _, verb := range verbs {
			rights = append(rights, authorizationv1.ResourceAttributes{
				Group: admissionv1.SchemeGroupVersion.Group, Version: admissionv1.SchemeGroupVersion.Version, Resource: resource, Verb: verb})
		}
	}
	return rights
}

// MissingPolicyRights asks the API server, as c's identity, for each of
// PolicyRights, and returns those it refuses, as "verb resource".
func MissingPolicyRights(ctx context.Context, c client.Client) ([]string, error) {
	var missing []string
	for _, right := range PolicyRights() {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &right}}
		if err := c.Create(ctx, review); err != nil {
			return nil, fmt.Errorf("asking whether the operator may %s %s: %w", right.Verb, right.Resource, err)
		}
		if !review.Status.Allowed {
			missing = append(missing, right.Verb+" "+right.Resource)
		}
	}
	return missing, nil
}

// policyBackend enforces the gates with admission policies the API server runs.
type policyBackend struct{ r *Reconciler }

func (p policyBackend) enforce(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition) (
	enforcement, error) {
	if len(p.r.MissingPolicyRights) > 0 {
		// Status says what is missing; nothing is tried that would be refused.
		return enforcement{backend: BackendPolicy, forbidden: p.r.MissingPolicyRights}, nil
	}
	// Status reports a failed write or probe; the error brings the retry.
	policies, err := p.r.applyPolicies(ctx, cfg, crd)
	state := enforcement{backend: BackendPolicy, err: err, registered: err == nil}
	if err == nil && policies.Mutating != nil {
		if state.loaded, err = p.r.policyLoaded(ctx, cfg, policies); err != nil {
			state.err = fmt.Errorf("asking the API server whether it runs them: %w", err)
			state.probeFailed = true
		}
	}
	return state, nil
}

// forget deletes the policies of the deleted CustomFeatureGates: the garbage
// collector would too, but only where one runs.
func (p policyBackend) forget(ctx context.Context, gates string) error {
	if len(p.r.MissingPolicyRights) > 0 {
		return nil // it could write none
	}
	return p.r.deletePolicies(ctx, p.r.Client, gates)
}

// watch has a policy deleted or changed by hand written again; without the
// rights to them there is none to watch, and no informer that could not list.
func (p policyBackend) watch(b *builder.Builder) *builder.Builder {
	if len(p.r.MissingPolicyRights) > 0 {
		return b
	}
	return b.Owns(&admissionv1.MutatingAdmissionPolicy{}).Owns(&admissionv1.MutatingAdmissionPolicyBinding{}).
		Owns(&admissionv1.ValidatingAdmissionPolicy{}).Owns(&admissionv1.ValidatingAdmissionPolicyBinding{})
}

// policyKinds are the kinds of a CRD's policy objects, each binding after
// its policy (featuregate.Policies.Objects keeps the same order).
func policyKinds() []client.Object {
	return []client.Object{
		&admissionv1.MutatingAdmissionPolicy{}, &admissionv1.MutatingAdmissionPolicyBinding{},
		&admissionv1.ValidatingAdmissionPolicy{}, &admissionv1.ValidatingAdmissionPolicyBinding{},
	}
}

// applyPolicies writes the policies that enforce cfg's gates on crd (nil when
// it does not exist) with server-side apply, owned by cfg so that they leave
// with it, and deletes the ones the gates no longer need. Gate states are
// compiled in, so a flip of enabled rewrites the policies.
func (r *Reconciler) applyPolicies(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition) (
	featuregate.Policies, error) {
	var policies featuregate.Policies
	if crd != nil && cfg.DeletionTimestamp.IsZero() {
		var err error
		if policies, err = featuregate.ForCRD(cfg, crd); err != nil {
			return policies, err
		}
	}
	owner := metav1.OwnerReference{
		APIVersion: featuresv1alpha1.GroupVersion.String(), Kind: "CustomFeatureGates",
		Name: cfg.Name, UID: cfg.UID, Controller: ptr.To(true),
	}
	wanted := policies.Objects()
	kinds := policyKinds()
	// Deleted bindings first, applied policies first: no binding names a missing policy.
	for i := len(kinds) - 1; i >= 0; i-- {
		if !slices.ContainsFunc(wanted, func(o runtime.Object) bool { return sameKind(o, kinds[i]) }) {
			if err := r.deletePolicyObject(ctx, r.Client, kinds[i], cfg.Name); err != nil {
				return policies, err
			}
		}
	}
	for _, o := range wanted {
		obj := o.(client.Object)
		obj.SetOwnerReferences([]metav1.OwnerReference{owner})
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return policies, err
		}
		apply := client.ApplyConfigurationFromUnstructured(&unstructured.Unstructured{Object: content})
		if err := r.Client.Apply(ctx, apply, client.FieldOwner(identity.PoliciesFieldManager), client.ForceOwnership); err != nil {
			return policies, fmt.Errorf("applying %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
		}
	}
	return policies, nil
}

// policyLoaded asks the API server whether it runs policies as written: a
// dry-run patch of cfg's status that carries the probe annotation is refused
// by exactly that revision of the mutating policy, and stores nothing.
func (r *Reconciler) policyLoaded(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, policies featuregate.Policies) (bool, error) {
	err := r.Client.Status().Patch(ctx, cfg.DeepCopy(), client.RawPatch(types.MergePatchType, featuregate.ProbePatch(policies.Revision)), client.DryRunAll)
	return featuregate.ReadPolicyProbe(err, policies.Mutating.Name)
}

// removeLeftoverPolicies deletes, under the webhook backend, the policies an
// earlier run with the policy backend left for the CustomFeatureGates named
// gates: their gate states are frozen, and they would go on dropping fields
// whose gates are on. It reads live, so that the webhook backend starts no
// informers for policy types, which its API server may not serve.
// Without the rights of the policy backend it may still read them, and says
// which are left rather than delete them.
func (r *Reconciler) removeLeftoverPolicies(ctx context.Context, gates string) error {
	return r.deletePolicies(ctx, r.Reader, gates)
}

func (r *Reconciler) deletePolicies(ctx context.Context, reader client.Reader, gates string) error {
	kinds := policyKinds()
	for i := len(kinds) - 1; i >= 0; i-- {
		if err := r.deletePolicyObject(ctx, reader, kinds[i], gates); err != nil {
			return err
		}
	}
	return nil
}

// deletePolicyObject deletes the policy object of the kind of empty that the
// CustomFeatureGates named gates controls, if there is one; the cache says so,
// so a CRD without Deprecated gates costs no request.
func (r *Reconciler) deletePolicyObject(ctx context.Context, reader client.Reader, empty client.Object, gates string) error {
	obj := empty.DeepCopyObject().(client.Object)
	if err := reader.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(gates)}, obj); err != nil {
		if meta.IsNoMatchError(err) {
			return nil // the API server serves no policies, so none was left
		}
		return client.IgnoreNotFound(err)
	}
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != "CustomFeatureGates" || ref.Name != gates {
		return nil // not ours
	}
	if len(r.MissingPolicyRights) > 0 {
		return fmt.Errorf("%s %s, which a run with the policy backend left, still enforces the gates as they were then, "+
			"and the operator may not delete it (config/components/policy-backend grants that): delete it",
			reflect.TypeOf(obj).Elem().Name(), obj.GetName())
	}
	if err := r.Client.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %s: %w", obj.GetName(), err)
	}
	return nil
}

// sameKind says whether a and b are objects of one Go type.
func sameKind(a runtime.Object, b client.Object) bool {
	return reflect.TypeOf(a) == reflect.TypeOf(b)
}

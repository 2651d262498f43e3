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

package featuregate

import (
	"fmt"
	"strconv"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

// Target is the resource a CRD serves, at its storage version: the policies
// match it there with matchPolicy Equivalent, so requests in any version are
// gated by paths of the storage version, as the webhook is.
type Target struct {
	// CRD is the CustomResourceDefinition's name, <plural>.<group>.
	CRD, Group, Version, Plural string
}

// Policies are the admission policies that enforce one CRD's gates inside the
// API server, without a webhook.
type Policies struct {
	// Mutating and its binding drop and keep fields. When no gate is off it
	// only answers probes, and matches no request for the CRD.
	Mutating        *admissionv1.MutatingAdmissionPolicy
	MutatingBinding *admissionv1.MutatingAdmissionPolicyBinding
	// Validating and its binding warn of fields of Deprecated gates that are
	// on; nil when there are none.
	Validating        *admissionv1.ValidatingAdmissionPolicy
	ValidatingBinding *admissionv1.ValidatingAdmissionPolicyBinding
	// Revision names what Mutating does; a probe of it (ProbePatch) is
	// refused once the API server runs it.
	Revision string
}

// PolicyName names every policy and binding of the gates of crd.
func PolicyName(crd string) string { return "featuregates." + crd }

// Policies compiles the gates, at their current states, into admission
// policies for t. Each path Drop acts on is one JSON patch mutation, in Drop's
// order: mutations see the object the previous ones patched, so removals that
// empty a shared map and restores that create one compose as in Drop.
func (s *Set) Policies(t Target) Policies {
	name := PolicyName(t.CRD)
	gated := admissionv1.NamedRuleWithOperations{RuleWithOperations: gatedRule(t)}
	out := s.mutatingPolicies(name, t.CRD, gated)
	out.Validating, out.ValidatingBinding = s.validatingPolicies(name, gated)
	return out
}

// mutatingPolicies are the policy that drops and keeps the fields of the
// gates that are off, and answers probes, with its binding and revision.
func (s *Set) mutatingPolicies(name, crd string, gated admissionv1.NamedRuleWithOperations) Policies {
	var mutations []admissionv1.Mutation
	var disabled [][]string // the paths the mutations act on
	for _, gp := range s.active {
		if gp.enabled {
			continue
		}
		disabled = append(disabled, gp.names)
		mutations = append(mutations, admissionv1.Mutation{
			PatchType: admissionv1.PatchTypeJSONPatch,
			JSONPatch: &admissionv1.JSONPatch{Expression: mutation(gp.names)},
		})
	}
	out := Policies{Revision: revisionOf(mutations, gated)}
	// The probe is answered by the first mutation, so that it costs a request
	// for the CRD no further JSON round trip of the object.
	rules := []admissionv1.NamedRuleWithOperations{probeRule(crd)}
	conditions := []admissionv1.MatchCondition{probeMatchCondition()}
	if len(mutations) > 0 {
		if present, ok := presence(disabled); ok {
			// One condition in place of the probe's: requests of the
			// gates' group pass as dry runs (probes, to reach the first
			// mutation), the CRD's when they hold a disabled field. One
			// program costs the API server less than two on every request.
			conditions = []admissionv1.MatchCondition{{
				Name:       TouchesGatedFields,
				Expression: "request.resource.group == " + strconv.Quote(probeResource.Group) + " ? request.dryRun : " + present,
			}}
		}
		rules = append([]admissionv1.NamedRuleWithOperations{gated}, rules...)
		mutations[0].JSONPatch.Expression = withProbe(out.Revision, mutations[0].JSONPatch.Expression)
	} else {
		mutations = []admissionv1.Mutation{{PatchType: admissionv1.PatchTypeJSONPatch, JSONPatch: &admissionv1.JSONPatch{Expression: withProbe(out.Revision, "")}}}
	}
	out.Mutating = &admissionv1.MutatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: rules, MatchPolicy: ptr.To(admissionv1.Equivalent)},
			MatchConditions:  conditions,
			Mutations:        mutations,
			// A gated CRD refuses writes rather than store forbidden fields.
			FailurePolicy: ptr.To(admissionv1.Fail),
			// The mutations are idempotent; a later webhook that sets a
			// gated field has them run again, as the webhook backend does.
			ReinvocationPolicy: admissionv1.IfNeededReinvocationPolicy,
		},
	}
	out.MutatingBinding = &admissionv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name},
	}
	return out
}

// validatingPolicies are the policy that warns of fields of Deprecated gates
// that are on, and its binding; nil when there are none.
func (s *Set) validatingPolicies(name string, gated admissionv1.NamedRuleWithOperations) (
	*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	var validations []admissionv1.Validation
	for _, gp := range s.active {
		// Validating policies see the object after mutation: a field of a
		// Deprecated gate that is off is dropped or stored by then, so only
		// the gates that are on can warn.
		if gp.enabled && gp.deprecated != "" {
			validations = append(validations, admissionv1.Validation{
				Expression: "!(" + has(object, gp.names) + ")", Message: gp.deprecated,
			})
		}
	}
	if len(validations) == 0 {
		return nil, nil
	}
	policy := &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{
				ResourceRules: []admissionv1.NamedRuleWithOperations{gated}, MatchPolicy: ptr.To(admissionv1.Equivalent),
			},
			Validations: validations,
			// A warning must never block a write.
			FailurePolicy: ptr.To(admissionv1.Ignore),
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: name, ValidationActions: []admissionv1.ValidationAction{admissionv1.Warn},
		},
	}
	return policy, binding
}

// ForCRD compiles the gates of cfg into the policies for crd, at its storage
// version: what the operator writes, `kubectl feature-gates render` prints and
// featuregatetest installs. It returns no policies when crd has no storage
// version, and an error for one of the operator's own CRDs (CheckTarget).
func ForCRD(cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition) (Policies, error) {
	if cfg.Name != crd.Name {
		return Policies{}, fmt.Errorf("CustomFeatureGates %s names another CRD than %s", cfg.Name, crd.Name)
	}
	if err := CheckTarget(crd.Name); err != nil {
		return Policies{}, err
	}
	set, err := Compile(FromAPI(cfg.Spec.FeatureGates))
	if err != nil {
		return Policies{}, err
	}
	if t, ok := TargetOf(crd); ok {
		return set.Policies(t), nil
	}
	return Policies{}, nil
}

// TargetOf is what the gates of crd act on: its storage version. ok is false
// for a nil crd and while crd has no storage version.
func TargetOf(crd *apiextensionsv1.CustomResourceDefinition) (t Target, ok bool) {
	if crd == nil {
		return Target{}, false
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return Target{CRD: crd.Name, Group: crd.Spec.Group, Version: v.Name, Plural: crd.Spec.Names.Plural}, true
		}
	}
	return Target{}, false
}

// gatedRule matches the writes the gates act on: create and update of t's
// resources and of their status.
func gatedRule(t Target) admissionv1.RuleWithOperations {
	return admissionv1.RuleWithOperations{
		Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
		Rule: admissionv1.Rule{
			APIGroups: []string{t.Group}, APIVersions: []string{t.Version},
			Resources: []string{t.Plural, t.Plural + "/status"},
		},
	}
}

// Objects lists the policies and their bindings that p holds, each binding
// after its policy: the order to write them in.
func (p Policies) Objects() []runtime.Object {
	var out []runtime.Object
	if p.Mutating != nil {
		out = append(out, p.Mutating, p.MutatingBinding)
	}
	if p.Validating != nil {
		out = append(out, p.Validating, p.ValidatingBinding)
	}
	return out
}

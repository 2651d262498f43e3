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
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	admissionv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
)

// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations,verbs=list;watch
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations,verbs=patch,resourceNames=applyset-operator-approvers

const (
	// approversPath is where the webhook that names approvers is served.
	approversPath = "/applysets/approvers"
	// DefaultApproversConfiguration is the MutatingWebhookConfiguration of that webhook.
	DefaultApproversConfiguration = "applyset-operator-approvers"
	// maxApprover bounds the user name an approval records, as
	// HistoryEntry.approvedBy does.
	maxApprover = 512
)

// approvers writes the approved-by annotation, "<digest> <user>": the
// digest a request sets spec.approvedPlan to and the request's user, on
// each request that approves a digest the set did not name; the stored
// value on any other. The approval policy (config/policy/approval.yaml)
// refuses any other value, so that a name is never forged even while this
// webhook, which fails open, does not answer: an approval it did not name
// is recorded without an approver.
type approvers struct{}

// Handle answers one create or update of a set that changes approvedPlan
// or the annotation (the entry's matchConditions).
func (approvers) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	object, old := &unstructured.Unstructured{}, &unstructured.Unstructured{}
	if err := object.UnmarshalJSON(req.Object.Raw); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if req.Operation == admissionv1.Update {
		if err := old.UnmarshalJSON(req.OldObject.Raw); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
	}
	if n := len(req.UserInfo.Username); n > maxApprover {
		return admission.Denied(fmt.Sprintf("the approver's user name is %d bytes long; an approval records at most %d", n, maxApprover))
	}
	by, ok := approvedBy(approvalOf(old), approvalOf(object), req.UserInfo.Username)
	annotations := object.GetAnnotations()
	if current, has := annotations[applyv1alpha1.ApprovedByAnnotation]; has == ok && current == by {
		return admission.Allowed("")
	}
	if ok {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[applyv1alpha1.ApprovedByAnnotation] = by
	} else {
		delete(annotations, applyv1alpha1.ApprovedByAnnotation)
	}
	object.SetAnnotations(annotations)
	mutated, err := json.Marshal(object.Object)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, mutated)
}

// approval is what a version of a set says of its approval: the digest
// approved, and who the annotation says approved it.
type approval struct {
	plan string
	by   string
	// named is whether the annotation is there.
	named bool
}

// approvalOf reads obj's approval; the zero approval for an empty object
// (the old object of a create).
func approvalOf(obj *unstructured.Unstructured) approval {
	plan, _, _ := unstructured.NestedString(obj.Object, "spec", "approvedPlan")
	by, named := obj.GetAnnotations()[applyv1alpha1.ApprovedByAnnotation]
	return approval{plan: plan, by: by, named: named}
}

// approvedBy is the annotation a request from user leaves, given the
// approval stored (old) and the one requested (next): the digest and user
// where the request approves a digest the set did not name, else what was
// stored, whatever the request wrote. Withdrawing an approval keeps the
// name, which names a digest no longer approved.
func approvedBy(old, next approval, user string) (by string, named bool) {
	if next.plan != "" && next.plan != old.plan {
		return next.plan + " " + user, true
	}
	return old.by, old.named
}

// approverOf is who approved digest, as the annotation of set names them;
// "" when it names another digest or none.
func approverOf(set client.Object, digest string) string {
	by, ok := strings.CutPrefix(set.GetAnnotations()[applyv1alpha1.ApprovedByAnnotation], digest+" ")
	if !ok || digest == "" {
		return ""
	}
	return by
}

// approversEntry is the webhook entry of approvers. It is sent only the
// requests that change approvedPlan or the annotation, so the operator's
// own writes never wait on it, and it fails open, as the Validator does:
// while no replica answers, approvals go through unnamed.
func approversEntry(ep webhooks.Endpoint) *admissionv1ac.MutatingWebhookApplyConfiguration {
	return admissionv1ac.MutatingWebhook().
		WithName("approvers.apply.applyset.dev").
		WithClientConfig(ep.ClientConfig(approversPath)).
		WithRules(admissionv1ac.RuleWithOperations().
			WithOperations(admissionregv1.Create, admissionregv1.Update).
			WithAPIGroups(applyv1alpha1.GroupVersion.Group).
			WithAPIVersions(applyv1alpha1.GroupVersion.Version).
			WithResources("applysets", "clusterapplysets")).
		WithMatchConditions(approvalTouched).
		WithMatchPolicy(admissionregv1.Equivalent).
		WithFailurePolicy(admissionregv1.Ignore).
		WithSideEffects(admissionregv1.SideEffectClassNone).
		WithReinvocationPolicy(admissionregv1.IfNeededReinvocationPolicy).
		WithTimeoutSeconds(5).
		WithAdmissionReviewVersions("v1")
}

// approvalTouched matches the requests whose approval or approver differ
// from what is stored.
var approvalTouched = admissionv1ac.MatchCondition().WithName("approval-touched").
	WithExpression("request.operation == 'CREATE' " +
		"? object.?spec.?approvedPlan.orValue('') != '' || " + approverIn("object") + ".hasValue() " +
		": object.?spec.?approvedPlan.orValue('') != oldObject.?spec.?approvedPlan.orValue('') || " +
		approverIn("object") + ".hasValue() != " + approverIn("oldObject") + ".hasValue() || " +
		approverIn("object") + ".orValue('') != " + approverIn("oldObject") + ".orValue('')")

// approverIn is the CEL optional of the approved-by annotation of obj.
func approverIn(obj string) string {
	return obj + ".metadata.?annotations[?'" + applyv1alpha1.ApprovedByAnnotation + "']"
}

// applyApprovers applies the MutatingWebhookConfiguration of approvers,
// which the install ships.
func (r *Registrar) applyApprovers(ctx context.Context, owner *metav1ac.OwnerReferenceApplyConfiguration) error {
	config := admissionv1ac.MutatingWebhookConfiguration(r.ApproversConfiguration).WithWebhooks(approversEntry(r.Endpoint))
	if owner != nil {
		config.WithOwnerReferences(owner)
	}
	existing := &admissionregv1.MutatingWebhookConfiguration{}
	existing.Name = r.ApproversConfiguration
	if err := webhooks.RequireShipped(ctx, r.Client, existing, "MutatingWebhookConfiguration"); err != nil {
		return err
	}
	if err := r.Client.Apply(ctx, config, client.FieldOwner(identity.WebhooksFieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying MutatingWebhookConfiguration %s: %w", r.ApproversConfiguration, err)
	}
	return nil
}

// approvedByNote ends the message that tells of set's approved plan
// digest with who approved it, where admission named them.
func approvedByNote(set client.Object, digest string) string {
	if by := approverOf(set, digest); by != "" {
		return ", approved by " + by
	}
	return ""
}

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

package validation

import (
	"context"
	"errors"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/internal/crdvalidate"
)

// rejection is what the API server must answer for an invalid object: the cause's
// field path and reason, and words of the message that tell a person what to fix.
// A rejection by the admission policy has no field path; its message names the field.
type rejection struct {
	field   string
	reason  metav1.CauseType
	message string
	policy  string
}

// accepted marks a case the API server must accept.
var accepted *rejection

func rejected(field string, reason metav1.CauseType, message string) *rejection {
	return &rejection{field: field, reason: reason, message: message}
}

func deniedByPolicy(policy, message string) *rejection {
	return &rejection{policy: policy, message: message}
}

// applySet is an ApplySet in the home namespace with the given spec, written as
// flow-style YAML.
func applySet(spec string) string {
	return "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: set, namespace: " +
		home + "}, spec: " + spec + "}"
}

func clusterApplySet(spec string) string {
	return "{apiVersion: apply.applyset.dev/v1alpha1, kind: ClusterApplySet, metadata: {name: set}, spec: " + spec + "}"
}

func featureGates(name, spec string) string {
	return "{apiVersion: features.applyset.dev/v1alpha1, kind: CustomFeatureGates, metadata: {name: " +
		name + "}, spec: " + spec + "}"
}

// gate is a CustomFeatureGates for widgets.example.com with the given gates.
func gates(gates ...string) string {
	return featureGates("widgets.example.com", "{featureGates: ["+strings.Join(gates, ", ")+"]}")
}

func parse(manifest string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	ExpectWithOffset(2, yaml.Unmarshal([]byte(manifest), &obj.Object)).To(Succeed(), manifest)
	return obj
}

// dryRunCreate asks the API server to validate manifest as a create, storing nothing.
func dryRunCreate(ctx context.Context, manifest string) error {
	return k8sClient.Create(ctx, parse(manifest), client.DryRunAll)
}

// offline is kubectl applyset validate's validator: the CRDs and the
// namespace-scope policy built into the binary.
var offline = func() *crdvalidate.Validator {
	v, err := crdvalidate.Operator()
	if err != nil {
		panic(err)
	}
	return v
}()

// expectBoth asks the API server to validate manifest (dry-run create) and
// checks its answer against want; then validates manifest offline and fails
// unless the offline answer is the API server's: accepted by both, or
// refused by both with the same causes (field, type, message), or denied by
// the same policy with the same message.
func expectBoth(ctx context.Context, manifest string, want *rejection) {
	GinkgoHelper()
	serverErr := dryRunCreate(ctx, manifest)
	expectOutcome(serverErr, want)

	obj := parse(manifest)
	errs, err := offline.Check(ctx, obj)
	if err == nil {
		recordCase(obj, errs)
	}
	var denial *crdvalidate.PolicyDenial
	switch {
	case errors.As(err, &denial):
		Expect(serverErr).To(HaveOccurred(), "offline validation denied what the API server accepted: %v", denial)
		Expect(serverErr.Error()).To(ContainSubstring(denial.Error()), "the policy's message differs offline")
	case err != nil:
		Fail(fmt.Sprintf("offline validation could not check the object: %v", err))
	case len(errs) == 0:
		Expect(serverErr).NotTo(HaveOccurred(), "offline validation accepted what the API server refused")
	default:
		Expect(serverErr).To(HaveOccurred(), "offline validation refused what the API server accepted: %v", errs)
		var status apierrors.APIStatus
		Expect(errors.As(serverErr, &status)).To(BeTrue())
		Expect(status.Status().Details).NotTo(BeNil(), serverErr.Error())
		offlineCauses := apierrors.NewInvalid(obj.GroupVersionKind().GroupKind(), obj.GetName(), errs).Status().Details.Causes
		Expect(offlineCauses).To(ConsistOf(status.Status().Details.Causes), "offline causes differ from the API server's")
	}
}

// expectOutcome checks err against want; accepted (nil) wants no error.
func expectOutcome(err error, want *rejection) {
	if want == nil {
		ExpectWithOffset(1, err).NotTo(HaveOccurred())
		return
	}
	ExpectWithOffset(1, err).To(HaveOccurred(), "the API server accepted an invalid object")
	var status apierrors.APIStatus
	ExpectWithOffset(1, errors.As(err, &status)).To(BeTrue(), "not an API status error: %v", err)
	ExpectWithOffset(1, status.Status().Reason).To(Equal(metav1.StatusReasonInvalid), err.Error())

	if want.policy != "" {
		ExpectWithOffset(1, err.Error()).To(And(
			ContainSubstring("ValidatingAdmissionPolicy '%s'", want.policy),
			ContainSubstring(want.message)))
		return
	}
	ExpectWithOffset(1, status.Status().Details).NotTo(BeNil(), err.Error())
	ExpectWithOffset(1, status.Status().Details.Causes).To(ContainElement(SatisfyAll(
		HaveField("Field", want.field),
		HaveField("Type", want.reason),
		HaveField("Message", ContainSubstring(want.message)),
	)), "want %s at %s saying %q; got %s", want.reason, want.field, want.message, describeCauses(status))
}

func describeCauses(status apierrors.APIStatus) string {
	if status.Status().Details == nil {
		return status.Status().Message
	}
	var b strings.Builder
	for _, c := range status.Status().Details.Causes {
		fmt.Fprintf(&b, "\n  %s at %s: %s", c.Type, c.Field, c.Message)
	}
	return b.String()
}

// repeat joins n items made by item(i) with commas.
func repeat(n int, item func(i int) string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = item(i)
	}
	return strings.Join(items, ", ")
}

// unstructuredSlice returns the list of objects at fields of obj.
func unstructuredSlice(obj map[string]any, fields ...string) ([]map[string]any, bool, error) {
	items, found, err := unstructured.NestedSlice(obj, fields...)
	out := make([]map[string]any, 0, len(items))
	for _, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, found, fmt.Errorf("item of %v is %T, not an object", fields, item)
		}
		out = append(out, m)
	}
	return out, found, err
}

// The namespaces the cases use: an ApplySet lives in home and may list other.
const (
	home  = "team-a"
	other = "team-b"
)

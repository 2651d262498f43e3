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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

// The API server says nowhere which policies it runs: it reads them through
// informers and compiles them about once a second. So every mutating policy
// answers a probe: a dry-run status patch of the CustomFeatureGates object
// that carries ProbeAnnotation with the policy's revision is refused by that
// policy, and by no other revision of it. A refusal proves that the API
// server runs exactly that revision, binding included; a dry run stores
// nothing; and the operator may patch that status already.

// ProbeAnnotation carries the revision a probe asks about.
const ProbeAnnotation = "features.applyset.dev/policy-probe"

// probeAnswerPath is removed from the probe object, where it never is, so
// that the JSON patch fails and the policy refuses the probe. A failed test
// operation would not do: the API server skips such patches.
const probeAnswerPath = "/policyLoaded"

// probeResource is the status of the CustomFeatureGates objects, which the
// probe patches.
var probeResource = featuresv1alpha1.GroupVersion.WithResource("customfeaturegates")

// ProbePatch is the merge patch of a probe of revision.
func ProbePatch(revision string) []byte {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{ProbeAnnotation: revision}}})
	return patch
}

// IsProbeAnswer reports whether err is the refusal of a probe by the
// mutating policy named policy: the API server runs the probed revision.
func IsProbeAnswer(err error, policy string) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || !apierrors.IsInvalid(err) {
		return false
	}
	msg := status.Status().Message
	return strings.Contains(msg, fmt.Sprintf("policy '%s'", policy)) && strings.Contains(msg, probeAnswerPath)
}

// IsProbeWait reports whether err, the answer to a probe, means only that the
// API server is not there yet: another policy or one it has not compiled
// refused the probe (Invalid), or its policy plugin does not know the
// CustomFeatureGates schema yet, as for a while after it starts (503).
func IsProbeWait(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsServiceUnavailable(err)
}

// ReadPolicyProbe reads the answer to a probe of the mutating policy named
// policy: loaded when the policy refused it; an error for answers that are
// neither that refusal nor a wait; otherwise not loaded yet (accepted: an
// older revision, or none, runs).
func ReadPolicyProbe(err error, policy string) (loaded bool, _ error) {
	switch {
	case IsProbeAnswer(err, policy):
		return true, nil
	case err != nil && !IsProbeWait(err):
		return false, err
	}
	return false, nil
}

// probeRule matches the probe: status updates of the CustomFeatureGates
// object named gates only.
func probeRule(gates string) admissionv1.NamedRuleWithOperations {
	return admissionv1.NamedRuleWithOperations{
		ResourceNames: []string{gates},
		RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Update},
			Rule: admissionv1.Rule{
				APIGroups: []string{probeResource.Group}, APIVersions: []string{probeResource.Version},
				Resources: []string{probeResource.Resource + "/status"},
			},
		},
	}
}

// probeMatchCondition keeps every request for the CustomFeatureGates but
// dry runs away from the policy: the gates' mutations must never touch the
// operator's own status writes.
func probeMatchCondition() admissionv1.MatchCondition {
	return admissionv1.MatchCondition{
		Name:       "probe-only-as-dry-run",
		Expression: "request.resource.group != " + strconv.Quote(probeResource.Group) + " || request.dryRun",
	}
}

// probeCondition is true for a probe of revision.
func probeCondition(revision string) string {
	key := strconv.Quote(ProbeAnnotation)
	return "request.dryRun && request.resource.group == " + strconv.Quote(probeResource.Group) +
		` && "annotations" in object.metadata && ` + key + " in object.metadata.annotations && object.metadata.annotations[" +
		key + "] == " + strconv.Quote(revision)
}

// withProbe answers a probe of revision before expr, or instead of it when
// expr is empty.
func withProbe(revision, expr string) string {
	if expr == "" {
		expr = "[]"
	}
	return probeCondition(revision) + " ? [" + patchOp("remove", []string{probeAnswerPath[1:]}, "") + "] : " + expr
}

// revisionOf names what a policy does: its gate mutations and the resources
// they act on.
func revisionOf(mutations []admissionv1.Mutation, rule admissionv1.NamedRuleWithOperations) string {
	return hashOf(struct {
		Mutations []admissionv1.Mutation
		Rule      admissionv1.NamedRuleWithOperations
	}{mutations, rule})
}

// hashOf is a short hash of v's JSON: a revision a probe can name.
func hashOf(v any) string {
	data, _ := json.Marshal(v)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Every mutating policy answers a probe (probe.go): the probed revision
// removes probeAnswerPath from the probe object, which fails, and the API
// server refuses the request naming the policy.

// probeAnswerPath is removed from the probe object, where it never is, so
// that the JSON patch fails and the policy refuses the probe. A failed test
// operation would not do: the API server skips such patches.
const probeAnswerPath = "/policyLoaded"

// policyProbe reads the answers to a probe of the mutating policy named
// policy. Another policy or one the API server has not compiled refusing the
// probe (Invalid), or its policy plugin not knowing the CustomFeatureGates
// schema yet, as for a while after it starts (503), is a wait.
func policyProbe(policy string) probeReader {
	return probeReader{
		refused: apierrors.IsInvalid,
		says:    []string{fmt.Sprintf("policy '%s'", policy), probeAnswerPath},
		wait:    func(err error) bool { return apierrors.IsInvalid(err) || apierrors.IsServiceUnavailable(err) },
	}
}

// ReadPolicyProbe reads the answer to a probe of the mutating policy named
// policy: loaded when the policy refused it; an error for answers that are
// neither that refusal nor a wait; otherwise not loaded yet.
func ReadPolicyProbe(err error, policy string) (loaded bool, _ error) {
	return policyProbe(policy).read(err)
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

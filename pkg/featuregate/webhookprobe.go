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
	"strconv"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The webhook backend is probed as the policies are: each CRD's webhook
// entry also matches dry-run status updates of its CustomFeatureGates that
// carry ProbeAnnotation with the entry's revision, and the webhook refuses
// them. A refusal proves that the API server calls the webhook through that
// very entry, conditions included; the webhook being reachable is part of
// what is proven.

// WebhookProbeAnswer is the webhook's refusal of a probe.
const WebhookProbeAnswer = "feature-gate webhook entry in force"

// WebhookEntry is what the webhook entry of one gated CRD holds besides its
// endpoint: the rules and the match conditions, and its revision.
type WebhookEntry struct {
	Rules      []admissionv1.RuleWithOperations
	Conditions []admissionv1.MatchCondition
	Revision   string
}

// WebhookEntryFor is the entry for gates over t: create and update of t's
// resources and their status, and the probe of the CustomFeatureGates named
// t.CRD. Requests that hold none of the gates' paths are left out when the
// condition fits (webhookCondition).
func WebhookEntryFor(t Target, gates []Gate) WebhookEntry {
	probe := probeRule(t.CRD).RuleWithOperations // webhook rules name no resources: a condition does
	var conditions []admissionv1.MatchCondition
	if present, ok := webhookCondition(gates); ok {
		conditions = append(conditions, admissionv1.MatchCondition{
			Name:       TouchesGatedFields,
			Expression: "request.resource.group == " + strconv.Quote(probeResource.Group) + " || " + present,
		})
	}
	entry := WebhookEntry{Rules: []admissionv1.RuleWithOperations{gatedRule(t), probe}}
	// The revision names what the API server must run for the gates to be
	// in force as written: the rule of t and the condition.
	entry.Revision = hashOf(struct {
		Target     Target
		Conditions []admissionv1.MatchCondition
	}{t, conditions})
	entry.Conditions = append([]admissionv1.MatchCondition{{
		Name: "probe-of-this-revision",
		Expression: "request.resource.group != " + strconv.Quote(probeResource.Group) + " || " +
			probeCondition(entry.Revision) + " && object.metadata.name == " + strconv.Quote(t.CRD),
	}}, conditions...)
	return entry
}

// webhookProbe reads the answers to a probe through the webhook entry named
// entry. The API server not knowing the CustomFeatureGates schema yet (503)
// is a wait; any other error, such as a webhook no replica answers, is one.
func webhookProbe(entry string) probeReader {
	return probeReader{refused: apierrors.IsForbidden, says: []string{strconv.Quote(entry), WebhookProbeAnswer}, wait: apierrors.IsServiceUnavailable}
}

// ReadWebhookProbe reads the answer to a probe through the webhook entry
// named entry: loaded when the webhook refused it; not yet when the API
// server accepted it (it runs an older revision of the entry, or none) or
// does not know the CustomFeatureGates schema yet; an error otherwise.
func ReadWebhookProbe(err error, entry string) (loaded bool, _ error) {
	return webhookProbe(entry).read(err)
}

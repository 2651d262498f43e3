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
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

// Both backends are probed the same way. The API server says nowhere which
// policies or webhook entries it runs: it reads them through informers and
// loads them about once a second. So each answers a probe: a dry-run status
// patch of the CustomFeatureGates object that carries ProbeAnnotation with a
// revision is refused by exactly that revision of the policy or entry. A
// refusal proves that the API server runs it as written; a dry run stores
// nothing; and the operator may patch that status already. The policy's
// probe is in policyprobe.go, the webhook entry's in webhookprobe.go.

// ProbeAnnotation carries the revision a probe asks about.
const ProbeAnnotation = "features.applyset.dev/policy-probe"

// probeResource is the status of the CustomFeatureGates objects, which the
// probe patches.
var probeResource = featuresv1alpha1.GroupVersion.WithResource("customfeaturegates")

// ProbePatch is the merge patch of a probe of revision.
func ProbePatch(revision string) []byte {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{ProbeAnnotation: revision}}})
	return patch
}

// probeCondition is true for a probe of revision.
func probeCondition(revision string) string {
	key := strconv.Quote(ProbeAnnotation)
	return "request.dryRun && request.resource.group == " + strconv.Quote(probeResource.Group) +
		` && "annotations" in object.metadata && ` + key + " in object.metadata.annotations && object.metadata.annotations[" +
		key + "] == " + strconv.Quote(revision)
}

// probeReader tells the answers to one backend's probe apart.
type probeReader struct {
	// refused says the API server refused the request the way only the
	// probed revision does: the status code's check, and what the message holds.
	refused func(error) bool
	says    []string
	// wait says an answer means only that the API server is not there yet.
	wait func(error) bool
}

// read reads the answer err to a probe: loaded when the probed revision
// refused it; an error for answers that are neither that refusal nor a wait;
// otherwise not loaded yet (accepted: an older revision, or none, runs).
func (p probeReader) read(err error) (loaded bool, _ error) {
	switch {
	case p.answered(err):
		return true, nil
	case err != nil && !p.wait(err):
		return false, err
	}
	return false, nil
}

// answered reports whether err is the probed revision's refusal.
func (p probeReader) answered(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || !p.refused(err) {
		return false
	}
	msg := status.Status().Message
	for _, part := range p.says {
		if !strings.Contains(msg, part) {
			return false
		}
	}
	return true
}

// hashOf is a short hash of v's JSON: a revision a probe can name.
func hashOf(v any) string {
	data, _ := json.Marshal(v)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

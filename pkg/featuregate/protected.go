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
	"errors"
	"fmt"
	"strings"
)

// OperatorGroups are the API groups of the operator's own CRDs, which no
// CustomFeatureGates may gate: a gate dropping .status.approval.sequence
// from ApplySets would freeze the approval counter, so that one approved
// plan could be replayed, and gates over the gates themselves could switch
// the gates off. The CRD of CustomFeatureGates refuses such a name (a rule
// on metadata.name); the operator also acts on none that was stored before
// the rule.
var OperatorGroups = []string{"apply.applyset.dev", "features.applyset.dev"}

// ErrOperatorCRD marks a CustomFeatureGates named after one of the
// operator's own CRDs.
var ErrOperatorCRD = errors.New("the operator's own CRDs (groups apply.applyset.dev and features.applyset.dev) may not be gated")

// CheckTarget returns ErrOperatorCRD, saying why, when crd (a CRD's name,
// <plural>.<group>) is one of the operator's own.
func CheckTarget(crd string) error {
	for _, group := range OperatorGroups {
		if strings.HasSuffix(crd, "."+group) {
			return fmt.Errorf("%s: %w: gates over them could switch off the operator's safeguards, "+
				"such as the approval counter of ApplySets", crd, ErrOperatorCRD)
		}
	}
	return nil
}

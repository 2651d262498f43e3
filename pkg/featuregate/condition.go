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
	"strings"
)

// TouchesGatedFields names the match condition that keeps requests holding
// no gated field away from the policy's mutations and the webhook's calls.
// The API server applies a policy's JSON patch by encoding the whole object
// to JSON and back, even for an empty patch, and calls a webhook over HTTP:
// a request whose object and stored object hold none of the paths would be
// left as it is by both, so it need not pay for either.
const TouchesGatedFields = "touches-gated-fields"

// maxConditionLength bounds that condition, well inside CEL's 100,000
// characters: many deep paths leave it out, and every request of the CRD
// goes through the gates, as without it.
const maxConditionLength = 50_000

// presence is a CEL expression true when one of paths (each a list of
// names) is in the request's object or in the stored one, read as Drop reads
// them; ok is false when there are no paths or it would be too long.
func presence(paths [][]string) (expr string, ok bool) {
	if len(paths) == 0 {
		return "", false
	}
	terms := make([]string, 0, 2*len(paths))
	for _, names := range paths {
		terms = append(terms, "("+has(object, names)+")", "("+has(oldObject, names)+")")
	}
	expr = strings.Join(terms, " || ")
	return expr, len(expr) <= maxConditionLength
}

// webhookCondition is the expression of the TouchesGatedFields condition for
// the webhook of gates: true when any of their paths, on or off, is in the
// object or the stored object, so that flipping a gate needs no new
// condition and deprecation warnings still reach the webhook. ok is false
// when the gates declare no path or the condition would be too long.
func webhookCondition(gates []Gate) (expr string, ok bool) {
	set, err := Compile(gates)
	if err != nil {
		return "", false // the webhook reports it; without a condition it still runs
	}
	paths := make([][]string, 0, len(set.paths))
	for _, gp := range set.paths {
		paths = append(paths, gp.names)
	}
	return presence(paths)
}

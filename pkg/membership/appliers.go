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

package membership

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/applyset-operator/applyset-operator/internal/identity"
)

// Appliers maps a tooling name to the field managers with which that tool
// applies its members. Only a part-of label one of them wrote with
// server-side apply counts as the tool's own when the operator repairs a hint
// or collects an orphan: a label any updater could have written proves
// nothing (the KEP's known risk of label-only access).
type Appliers map[string]sets.Set[string]

// DefaultAppliers are kubectl's and the operator's own managers: kubectl
// applies server-side as "kubectl" unless told otherwise.
func DefaultAppliers() Appliers {
	return Appliers{"kubectl": sets.New("kubectl"), identity.ToolingName: sets.New(identity.MembersFieldManager)}
}

// ParseAppliers reads TOOLING=MANAGER pairs separated by commas, adding to
// the defaults; a tooling may be named more than once.
func ParseAppliers(value string) (Appliers, error) {
	out := DefaultAppliers()
	for _, pair := range strings.Split(value, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		tooling, manager, ok := strings.Cut(pair, "=")
		if !ok || tooling == "" || manager == "" {
			return nil, fmt.Errorf("%q is not TOOLING=FIELD_MANAGER", pair)
		}
		if out[tooling] == nil {
			out[tooling] = sets.New[string]()
		}
		out[tooling].Insert(manager)
	}
	return out, nil
}

// Of returns the managers that vouch for members of a tooling's sets.
func (a Appliers) Of(tooling string) sets.Set[string] {
	return a[tooling].Clone()
}

// All returns every manager that vouches for some tooling: an orphan has no
// parent left to say which tool made it a member.
func (a Appliers) All() sets.Set[string] {
	all := sets.New[string]()
	for _, managers := range a {
		all = all.Union(managers)
	}
	return all
}

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
)

// Appliers maps a tooling name to the field managers with which that tool
// applies its members. Only a part-of label one of them wrote with
// server-side apply counts as the tool's own when the operator repairs a hint
// or collects an orphan: a label any updater could have written proves
// nothing (the KEP's known risk of label-only access).
type Appliers map[string]sets.Set[string]

// NewAppliers trusts, for each tooling, the field managers listed with it;
// an empty map trusts no one.
func NewAppliers(managers map[string][]string) Appliers {
	out := Appliers{}
	for tooling, names := range managers {
		out[tooling] = sets.New(names...)
	}
	return out
}

// ParseAppliers reads TOOLING=MANAGER pairs separated by commas, adding them
// to a copy of base; a tooling may be named more than once.
func ParseAppliers(value string, base Appliers) (Appliers, error) {
	out := Appliers{}
	for tooling, managers := range base {
		out[tooling] = managers.Clone()
	}
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

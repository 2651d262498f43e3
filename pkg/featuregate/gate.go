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

// Package featuregate evaluates CRD field feature gates and drops the fields of
// disabled gates from a request, as the CustomFeatureGates design (seed 004)
// tables say: on create a disabled field is removed; on update a field the
// stored object already has keeps its stored value, and the request's change to
// it is ignored. A gate on a path counts only while every gate on its ancestor
// paths is enabled.
//
// The package is pure: it works on unstructured objects. It is for CRD
// authors and tools that gate fields of their own CRDs: it compiles gates
// into the admission policies the API server runs (ForCRD), and
// pkg/featuregatetest installs them in a test's API server.
package featuregate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Maturity levels of a gate.
const (
	Alpha      = "Alpha"
	Beta       = "Beta"
	Stable     = "Stable"
	Deprecated = "Deprecated"
)

// Reasons for a gate's effective state.
const (
	ReasonStableAlwaysOn     = "StableAlwaysOn"
	ReasonExplicitlyEnabled  = "ExplicitlyEnabled"
	ReasonExplicitlyDisabled = "ExplicitlyDisabled"
	ReasonDefaultOn          = "DefaultOn"
	ReasonDefaultOff         = "DefaultOff"
)

// Gate is one feature gate over fields of a CRD.
type Gate struct {
	Name       string
	PreRelease string
	// Default and Enabled are nil when unset.
	Default, Enabled *bool
	// FieldPaths are written .spec.a.b.
	FieldPaths []string
	// DeprecationWarning is the warning for requests that set a field of a Deprecated gate.
	DeprecationWarning string
}

// Effective returns whether the gate is on and why: Stable gates are always on;
// otherwise enabled decides when set, else default, else off.
func Effective(g Gate) (bool, string) {
	switch {
	case g.PreRelease == Stable:
		return true, ReasonStableAlwaysOn
	case g.Enabled != nil && *g.Enabled:
		return true, ReasonExplicitlyEnabled
	case g.Enabled != nil:
		return false, ReasonExplicitlyDisabled
	case g.Default != nil && *g.Default:
		return true, ReasonDefaultOn
	}
	return false, ReasonDefaultOff
}

// ParsePath reads a .spec.a.b path.
func ParsePath(s string) (fieldpath.Path, error) {
	if !strings.HasPrefix(s, ".") || len(s) < 2 {
		return nil, fmt.Errorf("field path %q does not start with a dot and a field name", s)
	}
	names := strings.Split(s[1:], ".")
	elements := make([]any, 0, len(names))
	for _, n := range names {
		if n == "" {
			return nil, fmt.Errorf("field path %q has an empty field name", s)
		}
		elements = append(elements, n)
	}
	p, err := fieldpath.MakePath(elements...)
	if err != nil {
		return nil, fmt.Errorf("field path %q: %w", s, err)
	}
	return p, nil
}

// gatedPath is one path with the gate that guards it.
type gatedPath struct {
	path    fieldpath.Path
	names   []string
	gate    string
	enabled bool
	// deprecated holds the warning for a Deprecated gate's field, else "".
	deprecated string
}

// Set is a compiled set of gates, ready to drop fields.
type Set struct {
	// paths are sorted by depth, ancestors first.
	paths []gatedPath
	// active are the paths no disabled gate on an ancestor path settles, in
	// the same order: the ones Drop and the policies act on.
	active []gatedPath
	// all holds every gated path, for ancestor lookups.
	all *fieldpath.Set
}

// Compile checks and compiles gates. A path may be guarded by one gate only.
func Compile(gates []Gate) (*Set, error) {
	s := &Set{all: &fieldpath.Set{}}
	for _, g := range gates {
		enabled, _ := Effective(g)
		for _, raw := range g.FieldPaths {
			p, err := ParsePath(raw)
			if err != nil {
				return nil, fmt.Errorf("gate %s: %w", g.Name, err)
			}
			if s.all.Has(p) {
				return nil, fmt.Errorf("gate %s: field path %s is guarded by another gate too", g.Name, raw)
			}
			s.all.Insert(p)
			gp := gatedPath{path: p, names: strings.Split(raw[1:], "."), gate: g.Name, enabled: enabled}
			if g.PreRelease == Deprecated {
				gp.deprecated = cmp.Or(g.DeprecationWarning, fmt.Sprintf("%s is deprecated (feature gate %s)", raw, g.Name))
			}
			s.paths = append(s.paths, gp)
		}
	}
	slices.SortStableFunc(s.paths, func(a, b gatedPath) int { return len(a.path) - len(b.path) })
	var off []fieldpath.Path
	for _, gp := range s.paths {
		if under(gp.path, off) {
			continue
		}
		s.active = append(s.active, gp)
		if !gp.enabled {
			off = append(off, gp.path)
		}
	}
	return s, nil
}

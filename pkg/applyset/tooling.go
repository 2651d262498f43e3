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

package applyset

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Tooling is the value of the tooling annotation: the name of the tool that
// manages a set and its version, written name/version (kubectl/v1.37.1).
type Tooling struct {
	Name    string
	Version string
}

// ParseTooling reads a tooling value. The name is everything before the last
// slash, so names may hold slashes themselves; a value without a slash is all name.
func ParseTooling(value string) (Tooling, error) {
	if value == "" {
		return Tooling{}, errors.New("the tooling value is empty")
	}
	if strings.ContainsFunc(value, unicode.IsSpace) {
		return Tooling{}, fmt.Errorf("the tooling value %q holds white space", value)
	}
	i := strings.LastIndex(value, "/")
	if i < 0 {
		return Tooling{Name: value}, nil
	}
	name := value[:i]
	if name == "" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return Tooling{}, fmt.Errorf("the tooling value %q has no name before its version", value)
	}
	if i == len(value)-1 {
		return Tooling{}, fmt.Errorf("the tooling value %q ends in a slash: the version is missing", value)
	}
	return Tooling{Name: name, Version: value[i+1:]}, nil
}

// String writes the tooling value: name/version, or the name alone without a version.
func (t Tooling) String() string {
	if t.Version == "" {
		return t.Name
	}
	return t.Name + "/" + t.Version
}

// CompatibleWith reports whether a tool named t may manage a set written by
// other. As in kubectl, only the names count: any version of a tool may take
// over from another version of it.
func (t Tooling) CompatibleWith(other Tooling) bool {
	return t.Name == other.Name
}

// ParentFieldManager is the field manager with which a tool writes its
// parents, by kubectl's convention: the tooling name and "-applyset"
// (kubectl-applyset). Repairing a parent under the same manager leaves the
// tool owning the fields it will write again.
func (t Tooling) ParentFieldManager() string {
	return t.Name + "-applyset"
}

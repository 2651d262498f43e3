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

// Package version is the one version of a build of the operator and its
// plugins: the manager writes it into the tooling annotation of its sets, and
// each binary prints it on --version. The Makefile stamps it from
// hack/version.sh (git describe) with
//
//	-ldflags "-X github.com/applyset-operator/applyset-operator/internal/version.stamped=vX.Y.Z"
//
// so the manager, the plugins, the image tag, the chart and the install
// manifest of a release all name the same version.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// stamped is set by the linker; empty in a plain `go build` or `go test`.
var stamped string

// unstamped is the version of a build that was given none and whose module
// version Go did not record either.
const unstamped = "v0.0.0-dev"

// String is the version of this binary: the stamped one, else the module
// version `go install module@version` records, else unstamped.
func String() string {
	if stamped != "" {
		return stamped
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return unstamped
}

// Info is what `version -o json|yaml` prints, in the fields kubectl version
// names its client's by.
type Info struct {
	GitVersion string `json:"gitVersion"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
}

// get is the version of this binary with what it was built by and for.
func get() Info {
	return Info{GitVersion: String(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
}

// Line is the one line --version prints: the binary's name and its version.
func Line(name string) string {
	return fmt.Sprintf("%s %s\n", name, String())
}

// Valid reports why v cannot be a release version: every artifact takes it
// as is, so it must be a tag Docker accepts, SemVer after its "v" (the
// chart's version), and one word of the tooling annotation.
func Valid(v string) error {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return fmt.Errorf("version %q does not start with v", v)
	}
	if len(v) > 128 {
		return fmt.Errorf("version %q is longer than an image tag may be (128)", v)
	}
	core, pre, _ := strings.Cut(rest, "-")
	nums := strings.Split(core, ".")
	if len(nums) != 3 {
		return fmt.Errorf("version %q is not vMAJOR.MINOR.PATCH[-PRERELEASE]", v)
	}
	for _, n := range nums {
		if !numeric(n) {
			return fmt.Errorf("version %q: %q is not a number without leading zeros", v, n)
		}
	}
	if strings.Contains(v, "-") {
		for _, id := range strings.Split(pre, ".") {
			if id == "" || strings.Trim(id, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") != "" {
				return fmt.Errorf("version %q: pre-release %q holds an empty part or a character other than [0-9A-Za-z-]", v, pre)
			}
			if strings.Trim(id, "0123456789") == "" && !numeric(id) {
				return fmt.Errorf("version %q: pre-release part %q is a number with a leading zero", v, id)
			}
		}
	}
	return nil
}

// numeric reports whether s is a SemVer number: digits, no leading zero.
func numeric(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == "" && (s == "0" || s[0] != '0')
}

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

package version

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		version string
		valid   bool
	}{
		{"v0.1.0", true},
		{"v1.22.333", true},
		{"v0.1.0-rc.1", true},
		{"v0.1.0-3-g1a2b3c4d5e6f", true},       // git describe past a tag
		{"v0.1.0-3-g1a2b3c4d5e6f-dirty", true}, // ... with changes
		{"v0.1.0-dirty", true},
		{"v0.0.0-g0123456789ab", true}, // hack/version.sh before the first tag
		{unstamped, true},
		{"0.1.0", false},
		{"v0.1", false},
		{"v0.1.0.1", false},
		{"v01.1.0", false},
		{"v0.1.0-", false},
		{"v0.1.0-rc..1", false},
		{"v0.1.0-01", false},
		{"v0.1.0+build", false}, // no image tag holds a +
		{"v0.1.0-a b", false},
		{"v0.1.0-" + strings.Repeat("a", 130), false},
	} {
		if err := Valid(tc.version); (err == nil) != tc.valid {
			t.Errorf("Valid(%q) = %v, want valid %v", tc.version, err, tc.valid)
		}
	}
}

// TestDescribedVersionIsTooling: what hack/version.sh prints here is a valid
// version, and every valid version comes back whole from the tooling
// annotation the manager writes with it.
func TestDescribedVersionIsTooling(t *testing.T) {
	out, err := exec.Command("../../hack/version.sh").Output()
	if err != nil {
		t.Fatalf("hack/version.sh: %v", err)
	}
	described := strings.TrimSpace(string(out))
	for _, v := range []string{described, "v0.1.0-3-g1a2b3c4d5e6f-dirty", unstamped} {
		if err := Valid(v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
		checkTooling(t, v)
	}
}

func checkTooling(t *testing.T, v string) {
	t.Helper()
	written := identity.Tooling(v).String()
	read, err := applyset.ParseTooling(written)
	if err != nil || read.Version != v || !identity.Owns(read) {
		t.Errorf("the tooling %q reads back as %+v, %v", written, read, err)
	}
}

func FuzzValid(f *testing.F) {
	for _, v := range []string{"v0.1.0", "v0.1.0-3-gabc-dirty", "v1.2", "v0.1.0+x", "v0.1.0-01"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if Valid(v) != nil {
			return
		}
		if len(v) > 128 || strings.ContainsAny(v, "+/ \t\n") {
			t.Fatalf("%q passed as a version", v)
		}
		checkTooling(t, v)
	})
}

func TestPrint(t *testing.T) {
	var line, doc bytes.Buffer
	if err := print(&line, ""); err != nil || line.String() != "Client Version: "+String()+"\n" {
		t.Errorf("the line is %q, %v", line.String(), err)
	}
	if err := print(&doc, "json"); err != nil {
		t.Fatal(err)
	}
	var got map[string]Info
	if err := json.Unmarshal(doc.Bytes(), &got); err != nil || got["clientVersion"].GitVersion != String() {
		t.Errorf("-o json printed %s (%v)", doc.String(), err)
	}
	if err := print(&doc, "wide"); err == nil {
		t.Error("-o wide was taken")
	}
}

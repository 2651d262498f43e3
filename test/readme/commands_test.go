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

package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

var (
	makeCall      = regexp.MustCompile(`(?m)(?:^|[;&|(]\s*)make ((?:[A-Z_]+=\S+ )*)([a-z][a-z0-9-]*)`)
	makeTarget    = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`)
	imageTarValue = regexp.MustCompile(`(?m)^IMAGE_TAR \?= (\S+)$`)
	imageTarNamed = regexp.MustCompile(`bin/image/\S+\.tar`)
)

// The examples a suite cannot run (a cluster with nodes, kind, a registry)
// still name the checkout as it is: every make target they call is one of
// the Makefile's, and the image tarball they load is where make image
// writes it. A renamed target or path fails here, not on a reader's machine.
func TestExamplesNameTheCheckout(t *testing.T) {
	root := checkout(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, m := range makeTarget.FindAllStringSubmatch(string(makefile), -1) {
		targets = append(targets, m[1])
	}
	tar := imageTarValue.FindStringSubmatch(string(makefile))
	if len(targets) < 10 || tar == nil {
		t.Fatalf("the Makefile has %d targets and IMAGE_TAR %v: the patterns no longer read it", len(targets), tar)
	}
	examples, err := allExamples(root)
	if err != nil {
		t.Fatal(err)
	}
	called := 0
	for _, e := range examples {
		for _, m := range makeCall.FindAllStringSubmatch(e.body, -1) {
			called++
			if !slices.Contains(targets, m[2]) {
				t.Errorf("%s: make %s: the Makefile has no target %s", e, m[2], m[2])
			}
		}
		for _, named := range imageTarNamed.FindAllString(e.body, -1) {
			if named != tar[1] {
				t.Errorf("%s: %s: make image writes %s", e, named, tar[1])
			}
		}
	}
	if called == 0 {
		t.Fatal("no example calls make: the pattern no longer reads them")
	}
}

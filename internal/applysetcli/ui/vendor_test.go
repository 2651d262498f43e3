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

package ui

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The embedded graph library is the version hack/vendor-ui.sh pins, with its
// license, and defines the global graph.js uses: a pin changed without
// running the script, or a file replaced by hand, fails here.
func TestVendoredDagreIsThePinnedVersion(t *testing.T) {
	script, err := os.ReadFile("../../../hack/vendor-ui.sh")
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`(?m)^dagre_version=(\S+)$`).FindSubmatch(script)
	if pinned == nil {
		t.Fatal("hack/vendor-ui.sh pins no dagre_version")
	}
	read := func(name string) string {
		data, err := staticFS.ReadFile("static/vendor/dagre/" + name)
		if err != nil {
			t.Fatalf("%v: run make ui-vendor", err)
		}
		return string(data)
	}
	if got := strings.TrimSpace(read("VERSION")); got != string(pinned[1]) {
		t.Errorf("vendored dagre %s, hack/vendor-ui.sh pins %s: run make ui-vendor", got, pinned[1])
	}
	if !strings.Contains(read("LICENSE"), "Permission is hereby granted") {
		t.Error("the vendored LICENSE is not dagre's MIT license")
	}
	if !strings.HasPrefix(read("dagre.min.js"), `"use strict";var dagre=`) {
		t.Error("dagre.min.js does not define the global dagre that graph.js uses")
	}
}

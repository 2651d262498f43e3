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

package testenv

import (
	"os"
	"os/exec"
)

// NoChromium is hack/setup-chromium.sh's message when it finds no browser.
const NoChromium = "no Chromium found; install Chromium (Debian/Ubuntu: 'sudo apt-get install -y --no-install-recommends chromium'; " +
	"macOS: 'brew install --cask chromium') or set CHROMIUM to the path of a Chromium or Chrome binary; hack/setup-chromium.sh does it where it can"

// ChromiumPath finds Chromium as hack/setup-chromium.sh does, without
// installing it: $CHROMIUM, else chromium or chromium-browser on PATH; ""
// when there is none.
func ChromiumPath() string {
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

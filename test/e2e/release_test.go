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

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/applyset-operator/applyset-operator/internal/release"
)

// theRelease is what the suite installs: a release as make release writes
// it, found in E2E_DIST (make test-e2e writes one there) or dist/.
type theRelease struct {
	// installYAML and chart are the release's install manifest and packaged
	// chart; imageTar its image index tarball.
	installYAML, chart, imageTar string
	// image is the manager's image install.yaml names: repository, tag and digest.
	image string
}

// installed is the release this run installs, read in the BeforeSuite.
var installed theRelease

// readRelease finds the release's assets in dist and the manager's image in
// its install.yaml.
func readRelease(dist string) theRelease {
	GinkgoHelper()
	charts, err := filepath.Glob(filepath.Join(dist, "applyset-operator-*.tgz"))
	Expect(err).NotTo(HaveOccurred())
	Expect(charts).To(HaveLen(1), "one packaged chart in %s", dist)
	r := theRelease{
		installYAML: filepath.Join(dist, "install.yaml"),
		chart:       charts[0],
		imageTar:    filepath.Join(dist, release.ImageTarball),
	}
	manifest, err := os.ReadFile(r.installYAML)
	Expect(err).NotTo(HaveOccurred())
	r.image, err = release.ManagerImage(manifest)
	Expect(err).NotTo(HaveOccurred())
	Expect(r.image).To(MatchRegexp(`^`+regexp.QuoteMeta(release.ImageRepository)+`:[^@]+@sha256:[0-9a-f]{64}$`),
		"install.yaml names the release's image by tag and digest")
	return r
}

// importImage imports the release's image into the node's containerd by the
// tag and digest install.yaml names, so that the node never pulls it, and
// under the local name the suite's overlays of config/default give.
func (r theRelease) importImage() {
	GinkgoHelper()
	tagged, _, _ := strings.Cut(r.image, "@")
	repository := tagged[:strings.LastIndex(tagged, ":")]
	run("ctr", "images", "import", "--digests", "--base-name", repository, r.imageTar)
	run("ctr", "images", "tag", "--force", tagged, "docker.io/library/"+localImage)
}

// localImage is the image test/e2e/testdata's overlays of config/default run.
const localImage = "applyset-operator:latest"

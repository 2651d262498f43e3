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
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
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

// release is the release of this run, read in the BeforeSuite.
var release theRelease

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
		imageTar:    filepath.Join(dist, "applyset-operator-image.tar"),
	}
	r.image = managerImage(r.installYAML)
	Expect(r.image).To(MatchRegexp(`^ghcr\.io/applyset-operator/applyset-operator:[^@]+@sha256:[0-9a-f]{64}$`),
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

// managerImage is the image of the manager's Deployment in the manifest file.
func managerImage(file string) string {
	GinkgoHelper()
	data, err := os.ReadFile(file)
	Expect(err).NotTo(HaveOccurred())
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		Expect(err).NotTo(HaveOccurred())
		var d appsv1.Deployment
		Expect(yaml.Unmarshal(doc, &d)).To(Succeed())
		if d.Kind == "Deployment" && d.Name == deployment {
			for _, c := range d.Spec.Template.Spec.Containers {
				if c.Name == "manager" {
					return c.Image
				}
			}
		}
	}
	Fail("no manager Deployment in " + file)
	return ""
}

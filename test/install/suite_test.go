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

package install

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var (
	env       *testenv.Env
	k8sClient client.Client
	// kubectlTooling is the tooling the kubectl of the control plane's
	// version writes on the sets it applies: kubectl/v1.37.1, or the
	// version make test-compat runs.
	kubectlTooling string
)

func TestInstall(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Install suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	env = testenv.StartForSpecs(ctx)
	k8sClient = env.Client
	out, err := env.Kubectl(ctx, "", "version", "--client", "-o", "json")
	Expect(err).NotTo(HaveOccurred(), out)
	var version struct {
		ClientVersion struct{ GitVersion string }
	}
	Expect(json.Unmarshal([]byte(out), &version)).To(Succeed())
	Expect(version.ClientVersion.GitVersion).To(MatchRegexp(`^v1\.\d+\.\d+$`))
	kubectlTooling = "kubectl/" + version.ClientVersion.GitVersion
})

// toolingPattern matches kubectlTooling in a regular expression.
func toolingPattern() string { return regexp.QuoteMeta(kubectlTooling) }

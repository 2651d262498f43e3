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
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// The OCI example publishes to a registry the suite has not: its check runs
// the README's publishing lines as written, with a registry of its own on
// loopback where they name ghcr.io. The registry asks for credentials, so
// the push reads the docker config and the operator the pull Secret.
const (
	ociPusher, ociPushPassword = "you", "push-password"
	ociPullUser, ociPullToken  = "your-bot", "pull-token"
)

var pushedDigest = regexp.MustCompile(`(?m)^sha256:[a-f0-9]{64}$`)

// The API server and the admission checks accept the set as a dry run;
// then, published and applied as the README says, the set applies the three
// objects of the kustomization's build from the artifact pushed, and waits
// for the Deployment alone, whose Pods no node runs.
func checkExampleOCISource(ctx context.Context, out string) {
	dryRunCreated("catalog", "catalog")(ctx, out)

	host, stop := testenv.Registry(map[string]string{ociPusher: ociPushPassword, ociPullUser: ociPullToken})
	DeferCleanup(stop)
	repository := "oci://" + host + "/your-org/catalog-deploy"
	By("logging in to the registry, as docker login does")
	dockerDir := filepath.Join(home, ".docker")
	Expect(os.MkdirAll(dockerDir, 0o700)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dockerDir, "config.json"), testenv.DockerConfig(host, ociPusher, ociPushPassword), 0o600)).To(Succeed())
	DeferCleanup(os.RemoveAll, dockerDir)

	By("running the README's publishing lines against it, over plain HTTP")
	set, err := os.ReadFile(filepath.Join(root, "examples", "oci-source", "applyset.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(os.MkdirAll(filepath.Join(work, ".oci"), 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(work, ".oci", "applyset.yaml"), []byte(rewrite(string(set),
		"url: oci://ghcr.io/your-org/catalog-deploy", "url: "+repository+"\n      insecure: true",
	)), 0o644)).To(Succeed())
	publish := skippedExample("examples/oci-source/README.md", "kubectl applyset push")
	publish.body = "REGISTRY_TOKEN=" + ociPullToken + "\n" + rewrite(publish.body,
		"oci://ghcr.io/your-org/catalog-deploy --tag v1.4.0", repository+" --tag v1.4.0 --insecure --yes",
		"--docker-server=ghcr.io ", "--docker-server="+host+" ",
		"-f examples/oci-source/applyset.yaml", "-f .oci/applyset.yaml",
	)
	published, err := runExample(ctx, publish)
	Expect(err).NotTo(HaveOccurred(), "the publishing lines failed:\n%s\n-- their output:\n%s", publish.body, published)
	digest := pushedDigest.FindString(published)
	Expect(digest).NotTo(BeEmpty(), "push printed no digest:\n%s", published)

	Eventually(func(g Gomega) {
		set := &applyv1alpha1.ApplySet{}
		g.Expect(kube.Get(ctx, key("catalog", "catalog"), set)).To(Succeed())
		ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonProgressing), ready.Message)
		g.Expect(set.Status.Health).NotTo(BeNil())
		g.Expect(set.Status.Health.Summary).To(Equal("2/3 ready"))
		g.Expect(set.Status.Health.Unhealthy).To(ConsistOf(And(HaveField("Kind", "Deployment"), HaveField("Name", "catalog"))))
	}).Should(Succeed())
	applied := getSet(ctx, "catalog", "catalog")
	Expect(applied.Status.Sources).To(ConsistOf(And(HaveField("URL", repository), HaveField("Digest", digest))))
	expectMembers(ctx, applied.Status.ApplySetID, map[string]client.Object{
		generatedName(ctx, "catalog", "catalog-settings", applied.Status.ApplySetID): in("catalog", &corev1.ConfigMap{}),
		"catalog": in("catalog", &appsv1.Deployment{}),
	})
	expectMembers(ctx, applied.Status.ApplySetID, map[string]client.Object{"catalog": in("catalog", &corev1.Service{})})
}

// generatedName is the name of the one ConfigMap of the set id in namespace
// that kustomize generated as prefix-<hash>.
func generatedName(ctx context.Context, namespace, prefix, id string) string {
	GinkgoHelper()
	list := &corev1.ConfigMapList{}
	Expect(kube.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{partOfLabel: id})).To(Succeed())
	Expect(list.Items).To(ConsistOf(HaveField("Name", MatchRegexp(`^`+prefix+`-[a-z0-9]+$`))))
	return list.Items[0].Name
}

// skippedExample is the one example of file marked skip that holds text.
func skippedExample(file, text string) example {
	GinkgoHelper()
	var found []example
	for _, e := range docExamples {
		if e.file == file && e.mark == markSkip && strings.Contains(e.body, text) {
			found = append(found, e)
		}
	}
	Expect(found).To(HaveLen(1), "%s: the examples marked skip that hold %q", file, text)
	return found[0]
}

// rewrite replaces in text each old string of pairs, which must be there,
// with the new one after it: text that no longer says what the suite
// replaces fails here, rather than running something else.
func rewrite(text string, pairs ...string) string {
	GinkgoHelper()
	for i := 0; i+1 < len(pairs); i += 2 {
		Expect(text).To(ContainSubstring(pairs[i]), "%q no longer holds %q", text, pairs[i])
		text = strings.ReplaceAll(text, pairs[i], pairs[i+1])
	}
	return text
}

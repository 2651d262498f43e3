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
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var _ = Describe("kubectl applyset diff of an ApplySet with an oci source", Ordered, func() {
	var pluginDir, ns, host, digest string

	BeforeAll(func(ctx context.Context) {
		pluginDir = buildPlugin(ctx)
		ns = pluginNamespace(ctx)
		var stop func()
		host, stop = testenv.Registry(map[string]string{"alice": "s3cret"})
		DeferCleanup(stop)
		docker := testenv.DockerConfig(host, "alice", "s3cret")

		By("publishing an overlay with the plugin's push, with the user's docker config")
		dir := GinkgoT().TempDir()
		for name, data := range map[string]string{
			"base/kustomization.yaml":          "resources: [app.yaml]\n",
			"base/app.yaml":                    "{apiVersion: v1, kind: ConfigMap, metadata: {name: app}, data: {k: v}}\n",
			"overlays/prod/kustomization.yaml": "resources: [../../base]\nlabels: [{pairs: {env: prod}}]\npatches: [{path: size.yaml}]\n",
			"overlays/prod/size.yaml":          "{apiVersion: v1, kind: ConfigMap, metadata: {name: app}, data: {size: large}}\n",
		} {
			Expect(os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600)).To(Succeed())
		}
		dockerDir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dockerDir, "config.json"), docker, 0o600)).To(Succeed())
		GinkgoT().Setenv("DOCKER_CONFIG", dockerDir)
		stdout, stderr, code := runPlugin(ctx, pluginDir, "", "push", dir, "oci://"+host+"/team/app", "--tag", "v1", "--insecure", "--yes")
		Expect(code).To(BeZero(), stderr)
		digest = strings.TrimSpace(stdout)
		Expect(digest).To(HavePrefix("sha256:"))

		By("keeping the pull credentials in a Secret of the set's namespace, as for the operator")
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pull"},
			Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{corev1.DockerConfigJsonKey: docker}})).To(Succeed())
	})

	setYAML := func(version string) string {
		return fmt.Sprintf(`apiVersion: apply.applyset.dev/v1alpha1
kind: ApplySet
metadata: {name: app}
spec:
  sources:
  - oci: {url: oci://%s/team/app, %s, insecure: true, secretRef: {name: pull}}
    path: overlays/prod
`, host, version)
	}

	It("fetches the artifact with the set's credentials read as the user, and diffs its build", func(ctx context.Context) {
		stdout, stderr, code := runPlugin(ctx, pluginDir, setYAML("tag: v1"), "diff", "-n", ns, "-f", "-", "--artifact-allowed-hosts", "http://127.0.0.1")
		Expect(code).To(Equal(1), stdout+stderr)
		Expect(stderr).To(ContainSubstring(fmt.Sprintf("ApplySet/app: spec.sources[0] oci://%s/team/app:v1 is %s", host, digest)))
		Expect(stdout).To(MatchRegexp(`(?m)^\+\+\+ merged/v1\.ConfigMap\.` + ns + `\.app$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+    env: prod$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+  size: large$`))
		Expect(stderr).To(ContainSubstring("1 to create, 0 to change, 0 unchanged"))
		Expect(apierrorsNotFound(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}})).To(BeTrue(), "the preview wrote to the cluster")

		By("showing an edit of what is live, which the operator takes back, as for a ConfigMap source")
		kubectlSucceeds(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: app, labels: {env: prod}}, data: {k: old, size: large}}",
			"create", "-n", ns, "-f", "-")
		stdout, stderr, code = runPlugin(ctx, pluginDir, setYAML("digest: "+digest), "diff", "-n", ns, "-f", "-", "--artifact-allowed-hosts", "http://127.0.0.1")
		Expect(code).To(Equal(1), stdout+stderr)
		Expect(stdout).To(MatchRegexp(`(?m)^-  k: old$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+  k: v$`))
		Expect(stderr).To(ContainSubstring(fmt.Sprintf("ApplySet/app: spec.sources[0] oci://%s/team/app is %s", host, digest)))
		Expect(stderr).To(ContainSubstring("0 to create, 1 to change"))
	})

	It("reads the credentials Secret with the user's rights, not the operator's", func(ctx context.Context) {
		// A user who may read ApplySets and ConfigMaps but no Secret.
		Expect(env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-secrets"},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"apply.applyset.dev"}, Resources: []string{"applysets"}, Verbs: []string{"get", "list"}},
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}},
			}})).To(Succeed())
		Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-secrets"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "no-secrets"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "reader"}}})).To(Succeed())
		_, stderr, code := runPlugin(ctx, pluginDir, setYAML("tag: v1"), "diff", "-n", ns, "-f", "-", "--artifact-allowed-hosts", "http://127.0.0.1", "--as", "reader")
		Expect(code).To(Equal(2), stderr)
		Expect(stderr).To(ContainSubstring("standard input document 1: may not get secrets in namespace " + ns))
	})

	It("refuses a tag that points elsewhere than the pinned digest, and a missing tag", func(ctx context.Context) {
		wrong := "sha256:" + strings.Repeat("0", 64)
		_, stderr, code := runPlugin(ctx, pluginDir, setYAML("tag: v1, digest: \""+wrong+"\""), "diff", "-n", ns, "-f", "-", "--artifact-allowed-hosts", "http://127.0.0.1")
		Expect(code).To(Equal(2), stderr)
		Expect(stderr).To(ContainSubstring("not the pinned digest " + wrong))

		_, stderr, code = runPlugin(ctx, pluginDir, setYAML("tag: v9"), "diff", "-n", ns, "-f", "-", "--artifact-allowed-hosts", "http://127.0.0.1")
		Expect(code).To(Equal(2), stderr)
		Expect(stderr).To(ContainSubstring(`tag "v9" not found`))
	})
})

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
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/opencontainers/go-digest"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
)

var _ = Describe("kubectl applyset diff of an ApplySet with a flux source", Ordered, func() {
	var pluginDir, ns, sum string
	// hits counts the requests source-controller answers.
	var hits atomic.Int32
	// allowLoopback names the test's source-controller, on loopback, as the user would.
	allowLoopback := []string{"--artifact-allowed-hosts", "http://127.0.0.1"}

	BeforeAll(func(ctx context.Context) {
		installFluxCRDs(ctx)
		pluginDir = buildPlugin(ctx)
		ns = pluginNamespace(ctx)

		By("serving a tarball on loopback as source-controller does, named by a GitRepository's status.artifact")
		tarball := fluxTarball(map[string]string{
			"deploy/app.yaml":  "{apiVersion: v1, kind: ConfigMap, metadata: {name: app}, data: {k: v}}\n",
			"deploy/more.yaml": "{apiVersion: v1, kind: ConfigMap, metadata: {name: more}, data: {size: large}}\n",
			"other/skip.yaml":  "{apiVersion: v1, kind: ConfigMap, metadata: {name: skip}}\n",
		})
		sum = digest.FromBytes(tarball).String()
		// The tampered artifact's status claims the digest of other bytes.
		claimed := digest.FromString("another tarball").String()
		// source-controller's layout: /<kind>/<namespace>/<name>/<file>.
		at := func(name string) string { return "/gitrepository/" + ns + "/" + name + "/0123456789abcdef.tar.gz" }
		theirs := "/gitrepository/other-team/app/0123456789abcdef.tar.gz"
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			switch r.URL.Path {
			case at("app"), at("tampered"), theirs:
				_, _ = w.Write(tarball)
			default:
				http.NotFound(w, r)
			}
		}))
		DeferCleanup(srv.Close)
		gitRepository(ctx, ns, "app", srv.URL+at("app"), sum)
		gitRepository(ctx, ns, "tampered", srv.URL+at("tampered"), claimed)
		gitRepository(ctx, ns, "ftp", "ftp://"+strings.TrimPrefix(srv.URL, "http://")+at("ftp"), sum)
		// Its status names another namespace's artifact, whose digest its writer learnt.
		gitRepository(ctx, ns, "thief", srv.URL+theirs, sum)
	})

	setYAML := func(object string) string {
		return fmt.Sprintf(`apiVersion: apply.applyset.dev/v1alpha1
kind: ApplySet
metadata: {name: app}
spec:
  sources:
  - flux: {kind: GitRepository, name: %s}
    path: deploy
`, object)
	}

	It("reads the GitRepository as the user, fetches its artifact and diffs the objects under its path", func(ctx context.Context) {
		stdout, stderr, code := runPlugin(ctx, pluginDir, setYAML("app"), append([]string{"diff", "-n", ns, "-f", "-"}, allowLoopback...)...)
		Expect(code).To(Equal(1), stdout+stderr)
		Expect(stderr).To(ContainSubstring(fmt.Sprintf("ApplySet/app: spec.sources[0] GitRepository %s/app revision %s is %s", ns, gitRevision, sum)))
		Expect(stdout).To(MatchRegexp(`(?m)^\+\+\+ merged/v1\.ConfigMap\.` + ns + `\.app$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+\+\+ merged/v1\.ConfigMap\.` + ns + `\.more$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+  k: v$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+  size: large$`))
		Expect(stdout).NotTo(ContainSubstring("skip"), "an object outside the source's path was previewed")
		Expect(stderr).To(ContainSubstring("2 to create, 0 to change, 0 unchanged"))
		Expect(apierrorsNotFound(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}})).To(BeTrue(), "the preview wrote to the cluster")
	})

	It("reads the GitRepository with the user's rights, not the operator's", func(ctx context.Context) {
		// A user who may read ApplySets and ConfigMaps but no GitRepository.
		Expect(env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-gitrepositories"},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"apply.applyset.dev"}, Resources: []string{"applysets"}, Verbs: []string{"get", "list"}},
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}},
			}})).To(Succeed())
		Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-gitrepositories"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "no-gitrepositories"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "flux-reader"}}})).To(Succeed())
		stdout, stderr, code := runPlugin(ctx, pluginDir, setYAML("app"), append([]string{"diff", "-n", ns, "-f", "-", "--as", "flux-reader"}, allowLoopback...)...)
		Expect(code).To(Equal(2), stdout+stderr)
		Expect(stderr).To(ContainSubstring("standard input document 1: may not get gitrepositories.source.toolkit.fluxcd.io in namespace " + ns))
		Expect(stdout).NotTo(ContainSubstring("+++"))
	})

	It("refuses a tarball whose bytes do not match the artifact's digest, and previews nothing", func(ctx context.Context) {
		stdout, stderr, code := runPlugin(ctx, pluginDir, setYAML("tampered"), append([]string{"diff", "-n", ns, "-f", "-"}, allowLoopback...)...)
		Expect(code).To(Equal(2), stdout+stderr)
		Expect(stderr).To(ContainSubstring(fmt.Sprintf("GitRepository %s/tampered revision %s", ns, gitRevision)))
		Expect(stderr).To(ContainSubstring("the tarball does not match the artifact's digest: status.artifact.digest is " +
			digest.FromString("another tarball").String()))
		Expect(stderr).NotTo(ContainSubstring(strings.TrimPrefix(sum, "sha256:")), "the digest of the bytes served was told")
		Expect(stderr).NotTo(ContainSubstring("operator"))
		Expect(stderr).NotTo(ContainSubstring("to create"))
		Expect(stdout).NotTo(ContainSubstring("+++"))
	})

	It("says an artifact url it cannot fetch is the url's fault, not the operator's host list", func(ctx context.Context) {
		stdout, stderr, code := runPlugin(ctx, pluginDir, setYAML("ftp"), append([]string{"diff", "-n", ns, "-f", "-"}, allowLoopback...)...)
		Expect(code).To(Equal(2), stdout+stderr)
		Expect(stderr).To(ContainSubstring(fmt.Sprintf("GitRepository %s/ftp names an artifact that cannot be fetched", ns)))
		Expect(stderr).To(ContainSubstring("only http and https artifact urls are fetched"))
		Expect(stderr).NotTo(ContainSubstring("operator"))
		Expect(stderr).NotTo(ContainSubstring("--artifact-allowed-hosts"))
		Expect(stdout).NotTo(ContainSubstring("+++"))
	})

	It("fetches nothing from a host the user did not name, and says which flag names it", func(ctx context.Context) {
		before := hits.Load()
		stdout, stderr, code := runPlugin(ctx, pluginDir, setYAML("app"), "diff", "-n", ns, "-f", "-")
		Expect(code).To(Equal(2), stdout+stderr)
		Expect(stderr).To(ContainSubstring("this command fetches from no host; pass --artifact-allowed-hosts with that host to fetch from it here"))
		Expect(stderr).NotTo(ContainSubstring("operator's --artifact-allowed-hosts flag"))
		Expect(stdout).NotTo(ContainSubstring("+++"))
		Expect(hits.Load()).To(Equal(before), "an artifact was fetched from a host the user did not name")
	})

	It("refuses a status naming another namespace's artifact, as the operator does", func(ctx context.Context) {
		before := hits.Load()
		stdout, stderr, code := runPlugin(ctx, pluginDir, setYAML("thief"), append([]string{"diff", "-n", ns, "-f", "-"}, allowLoopback...)...)
		Expect(code).To(Equal(2), stdout+stderr)
		Expect(stderr).To(ContainSubstring(fmt.Sprintf("GitRepository %s/thief names an artifact this command may not fetch", ns)))
		Expect(stderr).To(ContainSubstring(fmt.Sprintf("not under its object's own path: Flux serves GitRepository %s/thief's artifacts at /gitrepository/%s/thief/<file>", ns, ns)))
		Expect(stdout).NotTo(ContainSubstring("+++"))
		Expect(hits.Load()).To(Equal(before), "another namespace's artifact was fetched")
	})
})

// installFluxCRDs installs Flux's source CRDs, those the operator's specs
// use, unless an earlier spec did.
func installFluxCRDs(ctx context.Context) {
	GinkgoHelper()
	err := env.Client.Get(ctx, client.ObjectKey{Name: "gitrepositories.source.toolkit.fluxcd.io"}, &apiextensionsv1.CustomResourceDefinition{})
	if err == nil {
		return
	}
	Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%v", err)
	_, err = envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join("..", "..", "controllers", "applysets", "testdata", "fluxcrds")}, ErrorIfPathMissing: true})
	Expect(err).NotTo(HaveOccurred())
}

// fluxTarball is files as source-controller stores an artifact: a gzip
// tarball.
func fluxTarball(files map[string]string) []byte {
	GinkgoHelper()
	raw := map[string][]byte{}
	for name, data := range files {
		raw[name] = []byte(data)
	}
	tree, err := artifact.NewTree(raw)
	Expect(err).NotTo(HaveOccurred())
	var buf bytes.Buffer
	Expect(tree.WriteTarGzip(&buf)).To(Succeed())
	return buf.Bytes()
}

// gitRepository creates a GitRepository and writes its status as
// source-controller does once it has stored an artifact at url.
// gitRevision is the revision every GitRepository of these specs stored.
const gitRevision = "main@sha1:0123456789abcdef0123456789abcdef01234567"

func gitRepository(ctx context.Context, ns, name, url, sum string) {
	GinkgoHelper()
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     map[string]any{"url": "https://git.example.com/team/app.git", "interval": "1m"}}}
	Expect(env.Client.Create(ctx, obj)).To(Succeed())
	now := time.Now().UTC().Format(time.RFC3339)
	obj.Object["status"] = map[string]any{
		"artifact": map[string]any{"url": url, "digest": sum, "revision": gitRevision, "path": "gitrepository/" + name + ".tar.gz", "lastUpdateTime": now},
		"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded",
			"message": "stored artifact for revision '" + gitRevision + "'", "lastTransitionTime": now}},
	}
	Expect(env.Client.Status().Update(ctx, obj)).To(Succeed())
}

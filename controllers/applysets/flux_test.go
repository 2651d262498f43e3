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

package applysets

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/opencontainers/go-digest"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
)

// sourceController plays Flux's source-controller: it serves tarballs over
// plain HTTP on loopback, at the paths publish gives them, and counts the
// requests it answers.
type sourceController struct {
	srv      *httptest.Server
	mu       sync.Mutex
	tarballs map[string][]byte
	hits     atomic.Int32
}

func newSourceController() *sourceController {
	sc := &sourceController{tarballs: map[string][]byte{}}
	sc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sc.hits.Add(1)
		sc.mu.Lock()
		data, ok := sc.tarballs[r.URL.Path]
		sc.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	}))
	DeferCleanup(sc.srv.Close)
	return sc
}

// publish serves files as a tarball, as source-controller stores an
// artifact of the object kind ns/name: under its path
// /<kind>/<namespace>/<name>/, named after a commit rather than its digest.
// It returns the tarball's URL and digest.
func (sc *sourceController) publish(kind, ns, name string, files map[string]string) (url, sum string) {
	GinkgoHelper()
	raw := map[string][]byte{}
	for file, data := range files {
		raw[file] = []byte(data)
	}
	tree, err := artifact.NewTree(raw)
	Expect(err).NotTo(HaveOccurred())
	var buf bytes.Buffer
	Expect(tree.WriteTarGzip(&buf)).To(Succeed())
	sc.mu.Lock()
	defer sc.mu.Unlock()
	path := fmt.Sprintf("/%s/%s/%s/%040x.tar.gz", strings.ToLower(kind), ns, name, len(sc.tarballs)+1)
	sc.tarballs[path] = buf.Bytes()
	return sc.srv.URL + path, digest.FromBytes(buf.Bytes()).String()
}

// fluxObject creates a Flux source object of kind, with no status yet.
func fluxObject(ctx context.Context, ns, kind, name string) *unstructured.Unstructured {
	GinkgoHelper()
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": kind,
		"metadata": map[string]any{"namespace": ns, "name": name}, "spec": map[string]any{}}}
	switch kind {
	case "GitRepository":
		obj.Object["spec"] = map[string]any{"url": "https://git.example.com/team/app.git", "interval": "1m"}
	case "OCIRepository":
		obj.Object["spec"] = map[string]any{"url": "oci://registry.example.com/team/app", "interval": "1m"}
	}
	Expect(k8sClient.Create(ctx, obj)).To(Succeed())
	return obj
}

// setArtifact writes obj's status as source-controller does once it has
// stored an artifact.
func setArtifact(ctx context.Context, obj *unstructured.Unstructured, url, sum, revision string) {
	GinkgoHelper()
	now := time.Now().UTC().Format(time.RFC3339)
	obj.Object["status"] = map[string]any{
		"artifact": map[string]any{"url": url, "digest": sum, "revision": revision, "path": "artifacts/x.tar.gz", "lastUpdateTime": now},
		"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded",
			"message": "stored artifact for revision '" + revision + "'", "lastTransitionTime": now}},
	}
	Expect(k8sClient.Status().Update(ctx, obj)).To(Succeed())
}

// fluxSet is an ApplySet reading one flux source, looked at again every second.
func fluxSet(ns, name string, kind applyv1alpha1.FluxSourceKind, object, path string) *applyv1alpha1.ApplySet {
	set := newSet(ns, name)
	set.Spec.Sources = []applyv1alpha1.Source{{Flux: &applyv1alpha1.FluxSource{Kind: kind, Name: object}, Path: path}}
	set.Spec.Interval = &metav1.Duration{Duration: time.Second}
	return set
}

func namespacedConfigMapYAML(ns string, names ...string) string {
	docs := make([]string, 0, len(names))
	for _, name := range names {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: %s}\ndata: {k: v}\n", name, ns))
	}
	return strings.Join(docs, "---\n")
}

var _ = Describe("Flux sources", func() {
	It("applies a GitRepository's artifact, then its next one, pruning what left", func(ctx context.Context) {
		ns, sc := newNamespace(ctx), newSourceController()
		url1, v1 := sc.publish("GitRepository", ns, "app", map[string]string{"deploy/app.yaml": configMapYAML("a", "b")})
		repo := fluxObject(ctx, ns, "GitRepository", "app")
		setArtifact(ctx, repo, url1, v1, "main@sha1:1111111")
		set := fluxSet(ns, "git", applyv1alpha1.FluxSourceGitRepository, "app", "deploy")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap a", "ConfigMap b"))
		Expect(set.Status.Sources).To(ConsistOf(And(HaveField("Kind", "GitRepository"), HaveField("Namespace", ns), HaveField("Name", "app"),
			HaveField("Path", "deploy"), HaveField("Digest", v1), HaveField("Revision", "main@sha1:1111111"), HaveField("Objects", HaveValue(BeEquivalentTo(2))))))

		url2, v2 := sc.publish("GitRepository", ns, "app", map[string]string{"deploy/app.yaml": configMapYAML("a", "c")})
		setArtifact(ctx, repo, url2, v2, "main@sha1:2222222")
		Eventually(appliedDigest(ctx, set)).Should(Equal(v2))
		Expect(set.Status.Sources[0].Revision).To(Equal("main@sha1:2222222"))
		Eventually(func() bool { return configMapExists(ctx, ns, "b") }).Should(BeFalse(), "b left the artifact and stays")
		Expect(configMapExists(ctx, ns, "c")).To(BeTrue())
		Eventually(setEvents(ctx, set)).Should(ContainElement(And(HaveField("Reason", ReasonArtifactChanged), HaveField("Note", ContainSubstring(
			"revision main@sha1:2222222 ("+v2+") (was revision main@sha1:1111111 ("+v1+"))")))))
	})

	It("applies and prunes nothing while the tarball does not match the artifact's digest", func(ctx context.Context) {
		ns, sc := newNamespace(ctx), newSourceController()
		url1, v1 := sc.publish("GitRepository", ns, "app", map[string]string{"app.yaml": configMapYAML("a", "b")})
		repo := fluxObject(ctx, ns, "GitRepository", "app")
		setArtifact(ctx, repo, url1, v1, "main@sha1:1111111")
		set := fluxSet(ns, "mismatch", applyv1alpha1.FluxSourceGitRepository, "app", "")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		url2, _ := sc.publish("GitRepository", ns, "app", map[string]string{"app.yaml": configMapYAML("a", "c")})
		claimed := digest.FromString("another tarball").String()
		setArtifact(ctx, repo, url2, claimed, "main@sha1:2222222")
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(And(HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", applyv1alpha1.ReasonArtifactUnavailable), HaveField("Message", And(
				ContainSubstring("GitRepository "+ns+"/app revision main@sha1:2222222"),
				ContainSubstring("does not match the artifact's digest"), ContainSubstring(claimed)))))
		Consistently(func() bool { return configMapExists(ctx, ns, "b") }, 2*time.Second).Should(BeTrue(), "b was pruned")
		Expect(configMapExists(ctx, ns, "c")).To(BeFalse(), "c of a tarball that failed its digest was applied")
		Expect(set.Status.Sources).To(ConsistOf(HaveField("Digest", v1)))
	})

	It("waits for an artifact, applying nothing, and applies it once there is one", func(ctx context.Context) {
		ns, sc := newNamespace(ctx), newSourceController()
		repo := fluxObject(ctx, ns, "GitRepository", "young")
		set := fluxSet(ns, "waiting", applyv1alpha1.FluxSourceGitRepository, "young", "")
		set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("inline", "v")}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(And(HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", applyv1alpha1.ReasonArtifactUnavailable), HaveField("Message", ContainSubstring("GitRepository "+ns+"/young has no artifact yet"))))
		Expect(configMapExists(ctx, ns, "inline")).To(BeFalse(), "a set whose artifact is missing applied its other objects")

		url, sum := sc.publish("GitRepository", ns, "young", map[string]string{"app.yaml": configMapYAML("late")})
		setArtifact(ctx, repo, url, sum, "main@sha1:3333333")
		readyFor(ctx, set)
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap inline", "ConfigMap late"))
	})

	It("says which permission its identity lacks to get the object", func(ctx context.Context) {
		ns, sc := bareNamespace(ctx), newSourceController()
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}})).To(Succeed())
		serviceAccount(ctx, ns, "default", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmaps"})
		url, sum := sc.publish("GitRepository", ns, "app", map[string]string{"app.yaml": configMapYAML("secretly")})
		setArtifact(ctx, fluxObject(ctx, ns, "GitRepository", "app"), url, sum, "main@sha1:1111111")
		set := fluxSet(ns, "denied", applyv1alpha1.FluxSourceGitRepository, "app", "")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(accessDenied("ServiceAccount "+ns+"/default",
			`get gitrepositories\.source\.toolkit\.fluxcd\.io in namespace `+ns))
		Expect(sc.hits.Load()).To(BeZero(), "the artifact of an object the set may not read was fetched")
		Expect(configMapExists(ctx, ns, "secretly")).To(BeFalse())
	})

	It("refuses an artifact url outside the hosts the admin allows, and says why", func(ctx context.Context) {
		ns, sc := newNamespace(ctx), newSourceController()
		url, sum := sc.publish("ExternalArtifact", ns, "external", map[string]string{"app.yaml": configMapYAML("elsewhere")})
		// Whoever writes an ExternalArtifact's status chooses its url.
		byName := strings.Replace(url, "127.0.0.1", "localhost", 1)
		setArtifact(ctx, fluxObject(ctx, ns, "ExternalArtifact", "external"), byName, sum, "v1")
		set := fluxSet(ns, "refused", applyv1alpha1.FluxSourceExternalArtifact, "external", "")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(And(HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", applyv1alpha1.ReasonArtifactUnavailable), HaveField("Message", And(
				ContainSubstring("ExternalArtifact "+ns+"/external names an artifact the operator may not fetch"),
				ContainSubstring("is not among the hosts sets may fetch from"), ContainSubstring("--artifact-allowed-hosts")))))
		Expect(sc.hits.Load()).To(BeZero(), "a host the policy leaves out was reached")
	})

	It("builds the kustomization of an ExternalArtifact's artifact", func(ctx context.Context) {
		ns, sc := newNamespace(ctx), newSourceController()
		url, sum := sc.publish("ExternalArtifact", ns, "rendered", map[string]string{
			"base/kustomization.yaml":          "resources: [app.yaml]\n",
			"base/app.yaml":                    configMapYAML("app"),
			"overlays/prod/kustomization.yaml": "resources: [../../base]\nnamePrefix: prod-\n",
		})
		setArtifact(ctx, fluxObject(ctx, ns, "ExternalArtifact", "rendered"), url, sum, "v1.2.0@sha256:abc")
		set := fluxSet(ns, "external", applyv1alpha1.FluxSourceExternalArtifact, "rendered", "overlays/prod")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap prod-app"))
		Expect(set.Status.Sources).To(ConsistOf(And(HaveField("Kind", "ExternalArtifact"), HaveField("Digest", sum))))
	})

	It("reads an OCIRepository for a ClusterApplySet, in the namespace its source names", func(ctx context.Context) {
		ns, sc := newNamespace(ctx), newSourceController()
		url, sum := sc.publish("OCIRepository", ns, "platform", map[string]string{"app.yaml": namespacedConfigMapYAML(ns, "platform")})
		setArtifact(ctx, fluxObject(ctx, ns, "OCIRepository", "platform"), url, sum, "latest@"+digest.FromString("manifest").String())
		set := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "flux-" + ns}}
		set.Spec.ServiceAccountNamespace, set.Spec.ServiceAccountName = clusterAdmin(ctx)
		set.Spec.AdditionalNamespaces = []string{ns}
		set.Spec.Sources = []applyv1alpha1.ClusterSource{{Namespace: ns, Source: applyv1alpha1.Source{
			Flux: &applyv1alpha1.FluxSource{Kind: applyv1alpha1.FluxSourceOCIRepository, Name: "platform"}}}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Status", metav1.ConditionTrue))
		Expect(configMapExists(ctx, ns, "platform")).To(BeTrue())
		Expect(set.Status.Sources).To(ConsistOf(And(HaveField("Kind", "OCIRepository"), HaveField("Namespace", ns), HaveField("Digest", sum))))
	})

	It("previews a flux source's objects in a dry run", func(ctx context.Context) {
		ns, sc := newNamespace(ctx), newSourceController()
		url, sum := sc.publish("GitRepository", ns, "app", map[string]string{"app.yaml": configMapYAML("preview")})
		setArtifact(ctx, fluxObject(ctx, ns, "GitRepository", "app"), url, sum, "main@sha1:1111111")
		set := fluxSet(ns, "preview", applyv1alpha1.FluxSourceGitRepository, "app", "")
		set.Spec.DryRun = ptr.To(true)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(condition(ctx, set, applyv1alpha1.ConditionReady)().Reason).To(Equal(applyv1alpha1.ReasonPreviewed))
		Expect(names(set.Status.Plan.Create)).To(ConsistOf("ConfigMap preview"))
		Expect(configMapExists(ctx, ns, "preview")).To(BeFalse(), "a dry run created an object")
	})
})

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
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/ociartifact"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// testArtifactHosts is the suite's host policy: the test registries listen
// on loopback, which a policy reaches only when it names the address.
var testArtifactHosts = []string{"http://127.0.0.1"}

// testRegistry is an in-memory OCI registry on loopback, behind basic
// authentication when given a user, that can be taken down and brought back.
type testRegistry struct {
	host string
	down atomic.Bool
}

func newTestRegistry(user, password string) *testRegistry {
	reg := &testRegistry{}
	var passwords map[string]string
	if user != "" {
		passwords = map[string]string{user: password}
	}
	handler := testenv.RegistryHandler(passwords)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reg.down.Load() {
			// As a registry that cannot be reached: the connection drops.
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		handler.ServeHTTP(w, r)
	}))
	DeferCleanup(srv.Close)
	reg.host = strings.TrimPrefix(srv.URL, "http://")
	return reg
}

func (r *testRegistry) url(repo string) string { return ociartifact.Scheme + r.host + "/" + repo }

// push writes files to repo:tag, as the given user, and returns the digest.
func (r *testRegistry) push(ctx context.Context, repo, tag string, files map[string]string, user, password string) string {
	GinkgoHelper()
	raw := map[string][]byte{}
	for name, data := range files {
		raw[name] = []byte(data)
	}
	tree, err := artifact.NewTree(raw)
	Expect(err).NotTo(HaveOccurred())
	policy, err := fetchpolicy.Parse(testArtifactHosts)
	Expect(err).NotTo(HaveOccurred())
	opts := ociartifact.Options{Policy: policy, Insecure: true}
	if user != "" {
		opts.DockerConfigJSON = testenv.DockerConfig(r.host, user, password)
	}
	digest, err := ociartifact.Push(ctx, tree, r.url(repo), tag, ociartifact.Metadata{Created: time.Unix(0, 0)}, opts)
	Expect(err).NotTo(HaveOccurred())
	return digest
}

func configMapYAML(names ...string) string {
	docs := make([]string, 0, len(names))
	for _, name := range names {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {k: v}\n", name))
	}
	return strings.Join(docs, "---\n")
}

// ociSet is an ApplySet reading one oci source, looked at again every second.
func ociSet(ns, name string, oci applyv1alpha1.OCISource, path string) *applyv1alpha1.ApplySet {
	set := newSet(ns, name)
	oci.Insecure = ptr.To(true)
	set.Spec.Sources = []applyv1alpha1.Source{{OCI: &oci, Path: path}}
	set.Spec.Interval = &metav1.Duration{Duration: time.Second}
	return set
}

// appliedDigest is the digest status.sources gives the set's one source.
func appliedDigest(ctx context.Context, set *applyv1alpha1.ApplySet) func() string {
	return func() string {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		if len(set.Status.Sources) != 1 {
			return ""
		}
		return set.Status.Sources[0].Digest
	}
}

// setEvents are the Events about set.
func setEvents(ctx context.Context, set *applyv1alpha1.ApplySet) func() []eventsv1.Event {
	return func() []eventsv1.Event {
		list := &eventsv1.EventList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(set.Namespace))).To(Succeed())
		var out []eventsv1.Event
		for _, e := range list.Items {
			if e.Regarding.Name == set.Name {
				out = append(out, e)
			}
		}
		return out
	}
}

var _ = Describe("OCI sources", func() {
	It("applies what a tag points to, and prunes what left when it moves", func(ctx context.Context) {
		ns, reg := newNamespace(ctx), newTestRegistry("", "")
		v1 := reg.push(ctx, "app", "stable", map[string]string{"app.yaml": configMapYAML("a", "b")}, "", "")
		set := ociSet(ns, "by-tag", applyv1alpha1.OCISource{URL: reg.url("app"), Tag: "stable"}, "")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap a", "ConfigMap b"))
		Expect(set.Status.Sources).To(ConsistOf(HaveField("Digest", v1)))
		Expect(set.Status.Sources[0].Objects).To(HaveValue(BeEquivalentTo(2)))

		v2 := reg.push(ctx, "app", "stable", map[string]string{"app.yaml": configMapYAML("a", "c")}, "", "")
		Eventually(appliedDigest(ctx, set)).Should(Equal(v2))
		Eventually(func() bool { return configMapExists(ctx, ns, "b") }).Should(BeFalse(), "b left the artifact and stays")
		Expect(configMapExists(ctx, ns, "c")).To(BeTrue())
		Eventually(setEvents(ctx, set)).Should(ContainElement(And(HaveField("Reason", ReasonArtifactChanged),
			HaveField("Note", ContainSubstring(v2+" (was "+v1+")")))))
	})

	It("stays on a pinned digest when the tag moves", func(ctx context.Context) {
		ns, reg := newNamespace(ctx), newTestRegistry("", "")
		v1 := reg.push(ctx, "app", "v1", map[string]string{"app.yaml": configMapYAML("pinned")}, "", "")
		set := ociSet(ns, "pinned", applyv1alpha1.OCISource{URL: reg.url("app"), Digest: &v1}, "")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		reg.push(ctx, "app", "v1", map[string]string{"app.yaml": configMapYAML("moved")}, "", "")
		Consistently(appliedDigest(ctx, set), 3*time.Second).Should(Equal(v1))
		Expect(configMapExists(ctx, ns, "moved")).To(BeFalse())
		Expect(configMapExists(ctx, ns, "pinned")).To(BeTrue())
	})

	It("reads credentials from the dockerconfigjson Secret it names, as the set's identity", func(ctx context.Context) {
		ns, reg := newNamespace(ctx), newTestRegistry("alice", "s3cret")
		reg.push(ctx, "private", "v1", map[string]string{"app.yaml": configMapYAML("private")}, "alice", "s3cret")
		set := ociSet(ns, "private", applyv1alpha1.OCISource{URL: reg.url("private"), Tag: "v1",
			SecretRef: &applyv1alpha1.SecretReference{Name: "pull"}}, "")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(And(
			HaveField("Reason", applyv1alpha1.ReasonSourceNotFound), HaveField("Message", ContainSubstring("Secret "+ns+"/pull does not exist"))))

		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pull"},
			Type: corev1.SecretTypeDockerConfigJson,
			Data: map[string][]byte{corev1.DockerConfigJsonKey: testenv.DockerConfig(reg.host, "alice", "s3cret")}})).To(Succeed())
		readyFor(ctx, set)
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap private"))
	})

	It("applies nothing while a tag is missing, and says so", func(ctx context.Context) {
		ns, reg := newNamespace(ctx), newTestRegistry("", "")
		set := ociSet(ns, "missing", applyv1alpha1.OCISource{URL: reg.url("app"), Tag: "v9"}, "")
		set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("inline", "v")}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(And(
			HaveField("Reason", applyv1alpha1.ReasonArtifactUnavailable), HaveField("Message", ContainSubstring(`tag "v9" not found`))))
		Expect(configMapExists(ctx, ns, "inline")).To(BeFalse(), "a set whose artifact is missing applied its other objects")
		Expect(set.Status.Members).To(BeEmpty())
	})

	It("prunes nothing while its registry is unreachable, and goes on once it is back", func(ctx context.Context) {
		ns, reg := newNamespace(ctx), newTestRegistry("", "")
		reg.push(ctx, "app", "v1", map[string]string{"app.yaml": configMapYAML("kept")}, "", "")
		set := ociSet(ns, "unreachable", applyv1alpha1.OCISource{URL: reg.url("app"), Tag: "v1"}, "")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		reg.down.Store(true)
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(And(
			HaveField("Reason", applyv1alpha1.ReasonArtifactUnavailable), HaveField("Message", ContainSubstring(reg.url("app")))))
		Consistently(func() bool { return configMapExists(ctx, ns, "kept") }, 2*time.Second).Should(BeTrue())
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap kept"))

		reg.down.Store(false)
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Status", metav1.ConditionTrue))
	})

	It("builds the kustomization at the source's path", func(ctx context.Context) {
		ns, reg := newNamespace(ctx), newTestRegistry("", "")
		reg.push(ctx, "app", "v1", map[string]string{
			"base/kustomization.yaml":          "resources: [app.yaml]\n",
			"base/app.yaml":                    configMapYAML("app"),
			"overlays/prod/kustomization.yaml": "resources: [../../base]\nnamePrefix: prod-\n",
		}, "", "")
		set := ociSet(ns, "overlay", applyv1alpha1.OCISource{URL: reg.url("app"), Tag: "v1"}, "overlays/prod")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(memberNames(set.Status.Members)).To(ConsistOf("ConfigMap prod-app"))
		Expect(set.Status.Sources).To(ConsistOf(And(HaveField("URL", reg.url("app")), HaveField("Path", "overlays/prod"))))
	})

	It("stalls on an artifact it refuses, naming the source, and applies nothing", func(ctx context.Context) {
		ns, reg := newNamespace(ctx), newTestRegistry("", "")
		reg.push(ctx, "app", "v1", map[string]string{"kustomization.yaml": "resources: [https://example.com/remote.yaml]\n"}, "", "")
		set := ociSet(ns, "hostile", applyv1alpha1.OCISource{URL: reg.url("app"), Tag: "v1"}, "")
		set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("inline", "v")}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(And(
			HaveField("Reason", applyv1alpha1.ReasonInvalidInput),
			HaveField("Message", And(ContainSubstring("spec.sources[0]"), ContainSubstring("is remote")))))
		Expect(configMapExists(ctx, ns, "inline")).To(BeFalse())
	})
})

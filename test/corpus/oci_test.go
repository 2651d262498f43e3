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

package corpus

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/registry"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/ociartifact"
)

// ociNamespace is where the overlay puts Argo CD, apart from the ConfigMap
// case's argocd.
const ociNamespace = "argocd-oci"

// argoOverlay is Argo CD's install as a base and an overlay on top, as a
// platform team publishes it: another namespace, a name prefix (so its
// cluster-scoped RBAC does not meet the ConfigMap case's), a label, a
// patch, and the CRDs left to the other install (a cluster has one copy).
func argoOverlay() map[string][]byte {
	GinkgoHelper()
	return map[string][]byte{
		"base/install.yaml":       manifest("argo-cd"),
		"base/kustomization.yaml": []byte("resources: [install.yaml]\n"),
		"overlays/oci/kustomization.yaml": []byte(`resources: [../../base]
namespace: ` + ociNamespace + `
namePrefix: oci-
labels:
- pairs: {corpus.test/overlay: oci}
patches:
- path: server.yaml
- target: {kind: CustomResourceDefinition}
  patch: |-
    $patch: delete
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata: {name: any}
`),
		"overlays/oci/server.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: argocd-server}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: argocd-server
        env:
        - {name: CORPUS_OVERLAY, value: oci}
`),
	}
}

// kustomizeBuild builds dir of files as kustomize build does.
func kustomizeBuild(files map[string][]byte, dir string) []byte {
	GinkgoHelper()
	fSys := filesys.MakeFsInMemory()
	for name, data := range files {
		Expect(fSys.WriteFile("/"+name, data)).To(Succeed())
	}
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fSys, "/"+dir)
	Expect(err).NotTo(HaveOccurred())
	out, err := resources.AsYaml()
	Expect(err).NotTo(HaveOccurred())
	return out
}

var _ = Describe("Argo CD as an OCI artifact with a kustomize overlay", Ordered, func() {
	var built []byte
	var set *applyv1alpha1.ApplySet

	BeforeAll(func() {
		built = kustomizeBuild(argoOverlay(), "overlays/oci")
		Expect(string(built)).NotTo(ContainSubstring("kind: CustomResourceDefinition"))
		Expect(string(built)).To(SatisfyAll(ContainSubstring("name: oci-argocd-server\n"), ContainSubstring("CORPUS_OVERLAY"),
			ContainSubstring("corpus.test/overlay: oci"), ContainSubstring("namespace: "+ociNamespace)))
	})

	It("installs with kustomize build | kubectl apply --server-side", func(ctx context.Context) {
		ensureNamespace(ctx, byKubectl.Client, ociNamespace)
		start := time.Now()
		out, err := byKubectl.Kubectl(ctx, string(built), "apply", "--server-side", "-n", ociNamespace, "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
		GinkgoWriter.Printf("kubectl installed the overlay in %s\n", time.Since(start).Round(time.Millisecond))
	})

	It("installs as an ApplySet reading the artifact from a registry, and turns Ready", func(ctx context.Context) {
		srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
		DeferCleanup(srv.Close)
		host := strings.TrimPrefix(srv.URL, "http://")
		tree, err := artifact.NewTree(argoOverlay())
		Expect(err).NotTo(HaveOccurred())
		policy, err := fetchpolicy.Parse(artifactHosts)
		Expect(err).NotTo(HaveOccurred())
		url := ociartifact.Scheme + host + "/argo-cd"
		digest, err := ociartifact.Push(ctx, tree, url, "v3.6.1", ociartifact.Metadata{Created: time.Unix(0, 0)},
			ociartifact.Options{Policy: policy, Insecure: true})
		Expect(err).NotTo(HaveOccurred())

		k8s := byOperator.Client
		ensureNamespace(ctx, k8s, ociNamespace)
		ensureInstaller(ctx, k8s, ociNamespace)
		set = &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ociNamespace, Name: "argo-cd"}}
		set.Spec.ServiceAccountName = "installer"
		set.Spec.Sources = []applyv1alpha1.Source{{OCI: &applyv1alpha1.OCISource{URL: url, Tag: "v3.6.1", Insecure: ptr.To(true)}, Path: "overlays/oci"}}
		set.Spec.Wait = ptr.To(false)
		Expect(k8s.Create(ctx, set)).To(Succeed())
		Eventually(func() *metav1.Condition {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		}).Should(SatisfyAll(HaveField("Status", metav1.ConditionTrue), HaveField("ObservedGeneration", set.Generation)))
		declared := declaredIn(built, ociNamespace)
		Expect(set.Status.MemberCount).To(HaveValue(BeEquivalentTo(len(declared))))
		Expect(fmt.Sprint(set.Status.Sources)).To(ContainSubstring(digest))
		GinkgoWriter.Printf("the operator installed the overlay: %d objects, artifact %s\n", len(declared), digest)
	})

	It("stores the same objects either way", func(ctx context.Context) {
		var diffs []string
		for _, want := range declaredIn(built, ociNamespace) {
			byK, byO := fetch(ctx, byKubectl.Client, want), fetch(ctx, byOperator.Client, want)
			if d := cmp.Diff(normalized(byK), normalized(byO)); d != "" {
				diffs = append(diffs, fmt.Sprintf("%s %s/%s (-kubectl +operator):\n%s", want.GetKind(), want.GetNamespace(), want.GetName(), d))
			}
		}
		Expect(strings.Join(diffs, "\n")).To(BeEmpty())
	})

	AfterAll(func(ctx context.Context) {
		if set == nil {
			return
		}
		// Let the set go, leaving its objects, so that it reconciles no more
		// while the other cases count the operator's writes.
		k8s := byOperator.Client
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		set.Spec.DeletionPolicy = applyv1alpha1.DeletionPolicyOrphan
		Expect(k8s.Update(ctx, set)).To(Succeed())
		Expect(k8s.Delete(ctx, set)).To(Succeed())
		Eventually(func() error { return k8s.Get(ctx, client.ObjectKeyFromObject(set), set) }).Should(Satisfy(apierrors.IsNotFound))
	})
})

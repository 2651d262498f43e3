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
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/opencontainers/go-digest"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
)

// The Flux example runs on a cluster that runs Flux, whose source-controller
// fetches from GitHub. The suite stands in for it: Flux's CRDs installed, and
// a loopback server holding the tarball source-controller would have made of
// the example's repository, named in the GitRepository's status as
// source-controller names it.
func init() {
	setups["example-flux-ready"] = standInForSourceController
	checks["example-flux-ready"] = checkExampleFluxReady
}

// ordersRevision is the revision of the repository the stand-in serves.
const ordersRevision = "main@sha1:3f9d2c41b7a05e6d8c1f4a9b2e7d6c5b4a3f2e1d"

// ordersRepository is the example's repository as the stand-in serves it: a
// nightly export of orders, with an overlay for each environment.
var ordersRepository = map[string]string{
	"base/kustomization.yaml": `resources: [export.yaml]
labels:
- pairs: {app.kubernetes.io/name: orders}
configMapGenerator:
- name: orders-settings
  literals: [LOG_LEVEL=info, EXPORT_BUCKET=orders-exports]
`,
	"base/export.yaml": `apiVersion: batch/v1
kind: CronJob
metadata:
  name: orders-export
spec:
  schedule: "0 2 * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: export
            image: ghcr.io/your-org/orders:2.3.1
            args: [export, --since=24h]
            envFrom:
            - configMapRef: {name: orders-settings}
`,
	"overlays/production/kustomization.yaml": `resources: [../../base]
labels:
- pairs: {env: production}
configMapGenerator:
- name: orders-settings
  behavior: merge
  literals: [LOG_LEVEL=warn]
`,
	"overlays/staging/kustomization.yaml": `resources: [../../base]
namePrefix: staging-
labels:
- pairs: {env: staging}
`,
}

var gitRepositoryKind = schema.GroupVersionKind{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "GitRepository"}

// sourceControllerStandIn is what the stand-in did, once done is closed.
type sourceControllerStandIn struct {
	// sum is the digest of the tarball it serves.
	sum  string
	done chan struct{}
	err  error
	// waited is the set's Ready message while it waited for the artifact.
	waited string
}

var standIn *sourceControllerStandIn

func standInForSourceController(ctx context.Context) {
	By("installing Flux's CRDs, and standing in for source-controller on loopback")
	cfg, err := clientcmd.BuildConfigFromFlags("", rl.Kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	_, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(root, "controllers", "applysets", "testdata", "fluxcrds")}, ErrorIfPathMissing: true})
	Expect(err).NotTo(HaveOccurred())

	tree, err := artifact.NewTree(toBytes(ordersRepository))
	Expect(err).NotTo(HaveOccurred())
	var tarball bytes.Buffer
	Expect(tree.WriteTarGzip(&tarball)).To(Succeed())
	// source-controller's layout: /<kind>/<namespace>/<name>/<file>.
	file := "/gitrepository/orders/orders/" + ordersRevision[len("main@sha1:"):] + ".tar.gz"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != file {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(tarball.Bytes())
	}))
	DeferCleanup(srv.Close)

	standIn = &sourceControllerStandIn{sum: digest.FromBytes(tarball.Bytes()).String(), done: make(chan struct{})}
	go func() {
		defer close(standIn.done)
		standIn.err = standIn.run(ctx, srv.URL+file)
	}()
}

// run does for the example's GitRepository, once it exists, what
// source-controller does once it has stored an artifact: it names it in
// status. It waits first until the set says it waits for the artifact, so
// that the README's word on that wait is seen to hold.
func (s *sourceControllerStandIn) run(ctx context.Context, url string) error {
	repo := &unstructured.Unstructured{}
	repo.SetGroupVersionKind(gitRepositoryKind)
	last := "nothing yet"
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		set := &applyv1alpha1.ApplySet{}
		for _, obj := range []client.Object{repo, set} {
			if err := kube.Get(ctx, key("orders", "orders"), obj); err != nil {
				last = err.Error()
				return false, client.IgnoreNotFound(err)
			}
		}
		ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		if ready == nil {
			return false, nil
		}
		last = ready.Reason + ": " + ready.Message
		s.waited = ready.Message
		return ready.Reason == applyv1alpha1.ReasonArtifactUnavailable, nil
	})
	if err != nil {
		return fmt.Errorf("the set did not wait for the GitRepository's artifact (last seen: %s): %w", last, err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	repo.Object["status"] = map[string]any{
		"artifact": map[string]any{"url": url, "digest": s.sum, "revision": ordersRevision,
			"path": "gitrepository/orders/orders/" + filepath.Base(url), "lastUpdateTime": now},
		"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded",
			"message": "stored artifact for revision '" + ordersRevision + "'", "lastTransitionTime": now}},
	}
	return kube.Status().Update(ctx, repo)
}

func toBytes(files map[string]string) map[string][]byte {
	raw := make(map[string][]byte, len(files))
	for name, data := range files {
		raw[name] = []byte(data)
	}
	return raw
}

// The set waited, ArtifactUnavailable, while the GitRepository had no
// artifact; then it applied the production overlay of the tarball, checked
// against its digest, and is Ready.
func checkExampleFluxReady(ctx context.Context, out string) {
	Expect(out).To(ContainSubstring("/orders condition met"))
	Eventually(standIn.done).Should(BeClosed())
	Expect(standIn.err).NotTo(HaveOccurred())
	Expect(standIn.waited).To(ContainSubstring("GitRepository orders/orders has no artifact yet"))

	set := getSet(ctx, "orders", "orders")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("True"))
	Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonSucceeded))
	Expect(set.Status.Sources).To(ConsistOf(And(HaveField("Kind", "GitRepository"), HaveField("Name", "orders"),
		HaveField("Path", "overlays/production"), HaveField("Revision", ordersRevision), HaveField("Digest", standIn.sum))))
	Expect(set.Status.Members).To(HaveLen(2), "only the production overlay's objects are applied")
	export := in("orders", &batchv1.CronJob{})
	expectMembers(ctx, set.Status.ApplySetID, map[string]client.Object{
		generatedName(ctx, "orders", "orders-settings", set.Status.ApplySetID): in("orders", &corev1.ConfigMap{}),
		"orders-export": export,
	})
	Expect(export.GetLabels()).To(HaveKeyWithValue("env", "production"))
}

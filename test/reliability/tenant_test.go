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

package reliability

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/ociartifact"
)

// Each attack is a set of the hostile tenant, in a namespace of its own,
// whose input is small and would cost the operator far more than its
// budget; all run at once while a quiet tenant changes its set every
// second. Every attack must stall with BudgetExceeded and every change of
// the quiet tenant turn Ready; how long the slowest took, and how much the
// operator's heap grew, are reported (docs/operations/reliability.md's goal is 5 s), not
// asserted: a test does not time a machine it shares.
var _ = Describe("A hostile tenant", Ordered, func() {
	var host string
	BeforeAll(func() {
		srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
		DeferCleanup(srv.Close)
		host = strings.TrimPrefix(srv.URL, "http://")
		policy, err := fetchpolicy.Parse([]string{"http://127.0.0.1"})
		Expect(err).NotTo(HaveOccurred())
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default",
				ArtifactPolicy: policy})
		})
	})

	It("stalls each attack on its own budget while other tenants' changes go on", func(ctx context.Context) {
		quiet, quietOCI := newQuietTenant(ctx), newQuietOCITenant(ctx, host)
		heap := watchHeap()
		changed, changedOCI := make(chan struct{}), make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(changed)
			quiet.change(ctx)
		}()
		go func() {
			defer GinkgoRecover()
			defer close(changedOCI)
			quietOCI.change(ctx)
		}()
		attacks := map[string]*applyv1alpha1.ApplySet{
			"a generator naming a 4 MiB file 40 times": ociAttack(ctx, host, "generator", map[string]string{
				"big.txt":            strings.Repeat("x", 4<<20),
				"kustomization.yaml": "configMapGenerator:\n- name: x\n  files: [" + refs("k%d=big.txt", 40) + "]\n"}),
			"a patch copying a value onto itself 16 times": ociAttack(ctx, host, "copies", map[string]string{
				"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata:\n  a: " + strings.Repeat("z", 64<<10) + "\n",
				"kustomization.yaml": "resources: [cm.yaml]\npatches:\n- target: {kind: ConfigMap}\n  patch: |\n" +
					lines("    - {op: copy, from: /data, path: /data/c%d}", 16)}),
			"15 MiB of tiny maps in one object": sourceAttack(ctx, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tiny}\ndata:\n  k:\n"+
				strings.Repeat("  - {}\n", (15<<20)/7)),
			"a spec that leaves its status no room":       specAttack(ctx),
			"health checks of nested loops on 20 members": celAttack(ctx),
		}
		for name, set := range attacks {
			Eventually(func() *metav1.Condition {
				Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
				return apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionStalled)
			}).WithTimeout(5*time.Minute).Should(HaveField("Reason", applyv1alpha1.ReasonBudgetExceeded), name)
			By(fmt.Sprintf("%s: %s", name, apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionStalled).Message))
		}
		// The bounds are for a hang, not for speed: each attack spends its CPU
		// budget, which under the race detector on two busy cores is minutes.
		Eventually(changed).WithTimeout(5 * time.Minute).Should(BeClosed())
		Eventually(changedOCI).WithTimeout(5 * time.Minute).Should(BeClosed())
		AddReportEntry("hostile tenant", fmt.Sprintf("the quiet tenant's changes were Ready after %s at most, those of a quiet "+
			"tenant whose every change is a kustomize build, waiting its turn beside the attacks' builds, after %s at most; "+
			"the operator's heap peaked %d MiB above where it began", quiet.slowest(), quietOCI.slowest(), heap()>>20))
	})
})

// quietTenant is a set of another tenant, changed again and again, and how
// long each change took to be Ready.
type quietTenant struct {
	set *applyv1alpha1.ApplySet
	// declare changes the set for a round; nil declares quietConfigMap(round) inline.
	declare func(set *applyv1alpha1.ApplySet, round int)
	mu      sync.Mutex
	worst   time.Duration
}

func newQuietTenant(ctx context.Context) *quietTenant {
	GinkgoHelper()
	ns := tenantNamespace(ctx)
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quiet"}}
	set.Spec.Resources = []applyv1alpha1.Resource{quietConfigMap(0)}
	Expect(k8sClient.Create(ctx, set)).To(Succeed())
	Eventually(ready(ctx, set)).Should(BeTrue())
	return &quietTenant{set: set}
}

func quietConfigMap(round int) applyv1alpha1.Resource {
	r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "quiet"}, "data": map[string]any{"round": fmt.Sprint(round)}})
	Expect(err).NotTo(HaveOccurred())
	return r
}

// quietRounds is how many times a quiet tenant changes its set.
const quietRounds = 30

// change changes the set quietRounds times, each once the last is Ready,
// and records how long each took.
func (q *quietTenant) change(ctx context.Context) {
	GinkgoHelper()
	for round := 1; round <= quietRounds; round++ {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(q.set), q.set)).To(Succeed())
		if q.declare != nil {
			q.declare(q.set, round)
		} else {
			q.set.Spec.Resources = []applyv1alpha1.Resource{quietConfigMap(round)}
		}
		Expect(k8sClient.Update(ctx, q.set)).To(Succeed())
		start := time.Now()
		Eventually(ready(ctx, q.set)).WithPolling(20 * time.Millisecond).WithTimeout(time.Minute).Should(BeTrue())
		q.mu.Lock()
		q.worst = max(q.worst, time.Since(start))
		q.mu.Unlock()
		time.Sleep(500 * time.Millisecond)
	}
}

func (q *quietTenant) slowest() time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.worst
}

// newQuietOCITenant is a quiet tenant whose set reads an OCI artifact
// built with kustomize: each change, a new tag, needs a build, which takes
// its turn beside the hostile tenant's builds.
func newQuietOCITenant(ctx context.Context, host string) *quietTenant {
	GinkgoHelper()
	url := ociartifact.Scheme + host + "/quiet"
	push := func(round int) string {
		tag := fmt.Sprintf("r%d", round)
		tree, err := artifact.NewTree(map[string][]byte{"kustomization.yaml": []byte("resources: [cm.yaml]\n"),
			"cm.yaml": fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: quiet}\ndata: {round: '%d'}\n", round)})
		Expect(err).NotTo(HaveOccurred())
		policy, err := fetchpolicy.Parse([]string{"http://127.0.0.1"})
		Expect(err).NotTo(HaveOccurred())
		_, err = ociartifact.Push(ctx, tree, url, tag, ociartifact.Metadata{Created: time.Unix(0, 0)}, ociartifact.Options{Policy: policy, Insecure: true})
		Expect(err).NotTo(HaveOccurred())
		return tag
	}
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace(ctx), Name: "quiet-oci"}}
	set.Spec.Sources = []applyv1alpha1.Source{{OCI: &applyv1alpha1.OCISource{URL: url, Tag: push(0), Insecure: ptr.To(true)}}}
	Expect(k8sClient.Create(ctx, set)).To(Succeed())
	Eventually(ready(ctx, set)).Should(BeTrue())
	return &quietTenant{set: set, declare: func(set *applyv1alpha1.ApplySet, round int) { set.Spec.Sources[0].OCI.Tag = push(round) }}
}

// attack creates a hostile set that tries again every two seconds.
func attack(ctx context.Context, set *applyv1alpha1.ApplySet) {
	GinkgoHelper()
	set.Spec.Interval = &metav1.Duration{Duration: 2 * time.Second}
	Expect(k8sClient.Create(ctx, set)).To(Succeed())
}

// ociAttack is a set of a hostile tenant reading files from an OCI artifact.
func ociAttack(ctx context.Context, host, repo string, files map[string]string) *applyv1alpha1.ApplySet {
	GinkgoHelper()
	raw := map[string][]byte{}
	for name, data := range files {
		raw[name] = []byte(data)
	}
	tree, err := artifact.NewTree(raw)
	Expect(err).NotTo(HaveOccurred())
	policy, err := fetchpolicy.Parse([]string{"http://127.0.0.1"})
	Expect(err).NotTo(HaveOccurred())
	url := ociartifact.Scheme + host + "/" + repo
	_, err = ociartifact.Push(ctx, tree, url, "v1", ociartifact.Metadata{Created: time.Unix(0, 0)},
		ociartifact.Options{Policy: policy, Insecure: true})
	Expect(err).NotTo(HaveOccurred())
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace(ctx), Name: repo}}
	set.Spec.Sources = []applyv1alpha1.Source{{OCI: &applyv1alpha1.OCISource{URL: url, Tag: "v1", Insecure: ptr.To(true)}}}
	attack(ctx, set)
	return set
}

// sourceAttack is a set of a hostile tenant reading a compressed ConfigMap.
func sourceAttack(ctx context.Context, manifests string) *applyv1alpha1.ApplySet {
	GinkgoHelper()
	ns := tenantNamespace(ctx)
	Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manifests"},
		BinaryData: map[string][]byte{"all.yaml": gzipped(manifests)}})).To(Succeed())
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "source"}}
	set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: "manifests"}}
	attack(ctx, set)
	return set
}

// specAttack is a set of a hostile tenant whose 300 inline ConfigMaps of
// 4 KiB (1.2 MiB of spec, which etcd stores) leave no room for its status:
// a set of many members keeps them in chunks, but its own spec must leave
// its status room.
func specAttack(ctx context.Context) *applyv1alpha1.ApplySet {
	GinkgoHelper()
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace(ctx), Name: "spec"}}
	for i := range 300 {
		r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i)}, "data": map[string]any{"k": strings.Repeat("v", 4<<10)}})
		Expect(err).NotTo(HaveOccurred())
		set.Spec.Resources = append(set.Spec.Resources, r)
	}
	attack(ctx, set)
	return set
}

// celAttack is a set of a hostile tenant whose health check compares every
// pair of keys of each of its 20 members.
func celAttack(ctx context.Context) *applyv1alpha1.ApplySet {
	GinkgoHelper()
	data := map[string]any{}
	for i := range 300 {
		data[fmt.Sprintf("k%03d", i)] = "v"
	}
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace(ctx), Name: "cel"}}
	for i := range 20 {
		r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("pairs-%d", i)}, "data": data})
		Expect(err).NotTo(HaveOccurred())
		set.Spec.Resources = append(set.Spec.Resources, r)
	}
	set.Spec.HealthChecks = []applyv1alpha1.HealthCheck{{APIVersion: "v1", Kind: "ConfigMap",
		Current: "self.data.all(a, self.data.all(b, a == b || self.data[a] == self.data[b]))"}}
	attack(ctx, set)
	return set
}

// lines writes format n times, numbered, a line each.
func lines(format string, n int) string {
	var out strings.Builder
	for i := range n {
		fmt.Fprintf(&out, format+"\n", i)
	}
	return out.String()
}

func refs(format string, n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return strings.Join(out, ", ")
}

// watchHeap samples this process's heap, the operator's among it, until the
// spec ends; the function it returns gives the peak above the first sample.
func watchHeap() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	done := make(chan struct{})
	DeferCleanup(func() { close(done) })
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				metrics.Read(sample)
				if v := sample[0].Value.Uint64(); v > base && v-base > peak.Load() {
					peak.Store(v - base)
				}
			}
		}
	}()
	return peak.Load
}

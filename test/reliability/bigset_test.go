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
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// One set of 100,000 ConfigMaps (RELIABILITY_BIG_SET; make reliability, as
// it takes minutes on 2 cores: make test declares 2,000), in one
// gzip-compressed ConfigMap, with the operator as --max-set-objects runs it:
// it applies and turns Ready with its inventory in chunks, holds the prune of
// the tenth that left its source for approval while previewing it, prunes
// exactly that tenth once approved, and deletes every member with the set
// once that is approved too.
var _ = Describe("One big set", func() {
	It("applies, previews and prunes once approved exactly what left, and deletes", func(ctx SpecContext) {
		n := envInt("RELIABILITY_BIG_SET", 2000)
		kept := n - n/10
		stop, err := env.RunManagerWith(func(o *ctrl.Options) { applysets.CacheOptions(&o.Cache) }, func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default", MaxObjects: n})
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(stop)
		ns := tenantNamespace(ctx)
		source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "objects"},
			BinaryData: map[string][]byte{"objects.yaml.gz": gzippedConfigMaps(n)}}
		Expect(k8sClient.Create(ctx, source)).To(Succeed())
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "big"}}
		set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: source.Name}}
		set.Spec.Approval = applyv1alpha1.ApprovalPrune
		set.Spec.Wait = ptr.To(false)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		reason := readyReason(ctx, set)

		By(fmt.Sprintf("applying %d objects", n))
		Eventually(reason).WithTimeout(20 * time.Minute).WithPolling(time.Second).Should(Equal(applyv1alpha1.ReasonSucceeded))
		Expect(set.Status.MemberCount).To(Equal(ptr.To(int32(n))))
		Expect(set.Status.Inventory).NotTo(BeNil())
		Expect(set.Status.Inventory.Chunks).NotTo(BeEmpty())
		whole, err := json.Marshal(set)
		Expect(err).NotTo(HaveOccurred())
		Expect(len(whole)).To(BeNumerically("<", 512<<10), "the set's own object")
		Expect(membersOf(ctx, ns, set.Status.ApplySetID)).To(HaveLen(n))

		By("a tenth leaving the source: the prune is previewed and waits")
		source.BinaryData["objects.yaml.gz"] = gzippedConfigMaps(kept)
		Expect(k8sClient.Update(ctx, source)).To(Succeed())
		Eventually(reason).WithTimeout(10 * time.Minute).WithPolling(time.Second).Should(Equal(applyv1alpha1.ReasonAwaitingApproval))
		Expect(set.Status.Plan.Counts.Prune).To(Equal(ptr.To(int32(n / 10))))
		Expect(membersOf(ctx, ns, set.Status.ApplySetID)).To(HaveLen(n), "deleted before the approval")

		By("approving: exactly the tenth that left is pruned")
		approve(ctx, set, set.Status.Plan.Digest)
		Eventually(func() *int32 {
			reason()
			return set.Status.MemberCount
		}).WithTimeout(10 * time.Minute).WithPolling(time.Second).Should(Equal(ptr.To(int32(kept))))
		Expect(reason()).To(Equal(applyv1alpha1.ReasonSucceeded))
		Expect(membersOf(ctx, ns, set.Status.ApplySetID)).To(Equal(configMapNames(kept)))

		By("deleting the set: its members go once that is approved")
		Expect(k8sClient.Delete(ctx, set)).To(Succeed())
		Eventually(reason).WithTimeout(10 * time.Minute).WithPolling(time.Second).Should(Equal(applyv1alpha1.ReasonAwaitingApproval))
		Expect(membersOf(ctx, ns, set.Status.ApplySetID)).To(HaveLen(kept), "deleted before the approval")
		approve(ctx, set, set.Status.Plan.Digest)
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), &applyv1alpha1.ApplySet{}))
		}).WithTimeout(20 * time.Minute).WithPolling(time.Second).Should(BeTrue())
		Expect(membersOf(ctx, ns, set.Status.ApplySetID)).To(BeEmpty())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(source), &corev1.ConfigMap{})).To(Succeed(), "the source is no member")
	})
})

// readyReason reads set and returns the reason of its Ready condition.
func readyReason(ctx context.Context, set *applyv1alpha1.ApplySet) func() string {
	return func() string {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
			return err.Error()
		}
		if c := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady); c != nil && c.ObservedGeneration == set.Generation {
			return c.Reason
		}
		return ""
	}
}

// approve names digest in the set's spec.approvedPlan, as kubectl applyset approve does.
func approve(ctx context.Context, set *applyv1alpha1.ApplySet, digest string) {
	GinkgoHelper()
	Expect(digest).NotTo(BeEmpty())
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
			return err
		}
		set.Spec.ApprovedPlan = &digest
		return k8sClient.Update(ctx, set)
	})).To(Succeed())
}

// membersOf names the ConfigMaps of ns that carry the set's label.
func membersOf(ctx context.Context, ns, id string) sets.Set[string] {
	GinkgoHelper()
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{applyset.PartOfLabel: id})).To(Succeed())
	out := sets.New[string]()
	for _, item := range list.Items {
		out.Insert(item.Name)
	}
	return out
}

// configMapNames are the names gzippedConfigMaps declares.
func configMapNames(n int) sets.Set[string] {
	out := sets.New[string]()
	for i := range n {
		out.Insert(fmt.Sprintf("cm-%d", i))
	}
	return out
}

// gzippedConfigMaps is a gzip-compressed YAML stream of n small ConfigMaps.
func gzippedConfigMaps(n int) []byte {
	GinkgoHelper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	for i := range n {
		_, err := fmt.Fprintf(w, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d}\ndata: {k: v}\n---\n", i)
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(w.Close()).To(Succeed())
	return out.Bytes()
}

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
	"sort"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// testLayout is the suite's inventory layout: sets of more than 20 members
// keep them in chunks of about 8, so that specs of a few dozen objects
// prove what sets of 100,000 do.
var testLayout = struct{ inline, perChunk int }{20, 8}

// operatorNamespace holds the chunks of the suite's ClusterApplySets.
const operatorNamespace = "applyset-operator-system"

// configMaps declares n ConfigMaps cm-0 .. cm-(n-1).
func configMaps(n int) []applyv1alpha1.Resource {
	out := make([]applyv1alpha1.Resource, n)
	for i := range out {
		out[i] = inlineConfigMap(fmt.Sprintf("cm-%d", i), "1")
	}
	return out
}

// chunksOf lists the inventory chunks of set, by name.
func chunksOf(ctx context.Context, ns string, set client.Object) map[string]applyv1alpha1.ApplySetInventory {
	GinkgoHelper()
	list := &applyv1alpha1.ApplySetInventoryList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{applyv1alpha1.InventoryOfLabel: string(set.GetUID())})).To(Succeed())
	out := map[string]applyv1alpha1.ApplySetInventory{}
	for _, c := range list.Items {
		out[c.Name] = c
	}
	return out
}

// chunkedMembers are the names and UIDs the chunks status names hold.
func chunkedMembers(ctx context.Context, set *applyv1alpha1.ApplySet) map[string]types.UID {
	GinkgoHelper()
	Expect(set.Status.Inventory).NotTo(BeNil(), "the set keeps its members in status")
	chunks := chunksOf(ctx, set.Status.Inventory.Namespace, set)
	out := map[string]types.UID{}
	for _, ref := range set.Status.Inventory.Chunks {
		chunk, ok := chunks[ref.Name]
		Expect(ok).To(BeTrue(), "status names chunk %s, which is not there", ref.Name)
		Expect(chunk.Spec.Members).To(HaveLen(int(*ref.Count)))
		for _, m := range chunk.Spec.Members {
			out[m.Name] = types.UID(m.UID)
		}
	}
	return out
}

func liveConfigMaps(ctx context.Context, ns string) map[string]types.UID {
	GinkgoHelper()
	list := &corev1.ConfigMapList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	out := map[string]types.UID{}
	for _, cm := range list.Items {
		if cm.Name != "kube-root-ca.crt" {
			out[cm.Name] = cm.UID
		}
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// asUser is a client acting as user.
func asUser(user string) client.Client {
	GinkgoHelper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: k8sClient.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

var _ = Describe("An inventory in chunks", func() {
	It("keeps the members of a set beyond its status' share in chunks, and prunes exactly what left", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "big", configMaps(30)...)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		By("recording every member, with its UID, in chunks the set owns")
		Expect(set.Status.Members).To(BeEmpty())
		Expect(set.Status.MemberCount).To(Equal(ptr.To(int32(30))))
		Expect(set.Status.Inventory.Namespace).To(Equal(ns))
		Expect(set.Status.Inventory.Chunks).To(HaveLen(4), "30 members in chunks of about %d", testLayout.perChunk)
		Expect(chunkedMembers(ctx, set)).To(Equal(liveConfigMaps(ctx, ns)))
		for _, c := range chunksOf(ctx, ns, set) {
			Expect(c.OwnerReferences).To(ConsistOf(HaveField("UID", set.UID)))
			Expect(c.Labels).NotTo(HaveKey(applyset.PartOfLabel), "a chunk is no member of any set")
		}

		By("writing no chunk while nothing changes")
		versions := map[string]string{}
		for name, c := range chunksOf(ctx, ns, set) {
			versions[name] = c.ResourceVersion
		}
		poke(ctx, set)
		readyFor(ctx, set)
		Consistently(func() map[string]string {
			now := map[string]string{}
			for name, c := range chunksOf(ctx, ns, set) {
				now[name] = c.ResourceVersion
			}
			return now
		}, "2s").Should(Equal(versions))

		By("pruning the members that left, and only them, however they are labelled")
		foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "foreign",
			Labels: map[string]string{applyset.PartOfLabel: set.Status.ApplySetID}}}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())
		updateSet(ctx, set, func(s *applyv1alpha1.ApplySet) { s.Spec.Resources = configMaps(25) })
		readyFor(ctx, set)
		Expect(set.Status.Plan.Counts.Prune).To(Equal(ptr.To(int32(5))))
		live := liveConfigMaps(ctx, ns)
		Expect(live).To(HaveKey("foreign"))
		delete(live, "foreign")
		Expect(chunkedMembers(ctx, set)).To(Equal(live))
		Expect(keys(live)).To(HaveLen(25))

		By("going back to status when the set fits there, and deleting the chunks")
		old := set.Status.Inventory.Chunks
		updateSet(ctx, set, func(s *applyv1alpha1.ApplySet) { s.Spec.Resources = configMaps(10) })
		readyFor(ctx, set)
		Expect(set.Status.Inventory).To(BeNil())
		Expect(memberNames(set.Status.Members)).To(HaveLen(10))
		Eventually(func() int { return len(chunksOf(ctx, ns, set)) }).Should(BeZero(), "chunks %v stayed", old)

		By("deleting the members a set proves through chunks, and the chunks, with the set")
		updateSet(ctx, set, func(s *applyv1alpha1.ApplySet) { s.Spec.Resources = configMaps(24) })
		readyFor(ctx, set)
		Expect(set.Status.Inventory).NotTo(BeNil())
		deleteAndWait(ctx, set)
		Expect(keys(liveConfigMaps(ctx, ns))).To(Equal([]string{"foreign"}))
		Expect(chunksOf(ctx, ns, set)).To(BeEmpty())
	})

	It("keeps a ClusterApplySet's chunks in the operator's namespace, and deletes them with it", func(ctx context.Context) {
		ns := bareNamespace(ctx)
		name := "platform-" + ns
		set := clusterSet(ctx, name, ns)
		for i := range 25 {
			r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i), "namespace": ns}})
			Expect(err).NotTo(HaveOccurred())
			set.Spec.Resources = append(set.Spec.Resources, r)
		}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(HaveField("Status", metav1.ConditionTrue))
		Expect(set.Status.Inventory).NotTo(BeNil())
		Expect(set.Status.Inventory.Namespace).To(Equal(operatorNamespace))
		chunks := chunksOf(ctx, operatorNamespace, set)
		Expect(chunks).To(HaveLen(len(set.Status.Inventory.Chunks)))
		members := 0
		for _, c := range chunks {
			Expect(c.OwnerReferences).To(ConsistOf(And(HaveField("Kind", "ClusterApplySet"), HaveField("UID", set.UID))))
			members += len(c.Spec.Members)
		}
		Expect(members).To(Equal(25))

		Expect(k8sClient.Delete(ctx, set)).To(Succeed())
		Eventually(func() int { return len(liveConfigMaps(ctx, ns)) }).Should(BeZero(), "the members proven by chunks stayed")
		Eventually(func() int { return len(chunksOf(ctx, operatorNamespace, set)) }).Should(BeZero(), "the chunks stayed")
	})

	It("refuses a tenant's write of a chunk, whatever the tenant may do in its namespace", func(ctx context.Context) {
		ns := newNamespace(ctx) // its default ServiceAccount may do anything in it
		set := newSet(ns, "guarded", configMaps(21)...)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		tenant := asUser("system:serviceaccount:" + ns + ":default")

		forged := &applyv1alpha1.ApplySetInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "forged",
			Labels: map[string]string{applyv1alpha1.InventoryOfLabel: string(set.UID)}},
			Spec: applyv1alpha1.ApplySetInventorySpec{Set: applyv1alpha1.InventorySet{Kind: "ApplySet", Name: set.Name, UID: string(set.UID)}}}
		Expect(tenant.Create(ctx, forged)).To(MatchError(ContainSubstring("may not write the inventory of a set")))

		chunk := chunksOf(ctx, ns, set)[set.Status.Inventory.Chunks[0].Name]
		chunk.Spec.Members = append(chunk.Spec.Members, applyv1alpha1.Member{
			ObjectReference: applyv1alpha1.ObjectReference{Kind: "Secret", Namespace: ns, Name: "victim"}, UID: "forged"})
		Expect(tenant.Update(ctx, &chunk)).To(MatchError(ContainSubstring("may not write the inventory of a set")))
	})

	It("leaves alone the members of a lost chunk, and records again those still declared", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "lossy", configMaps(30)...)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(k8sClient.DeleteAllOf(ctx, &applyv1alpha1.ApplySetInventory{}, client.InNamespace(ns))).To(Succeed())

		updateSet(ctx, set, func(s *applyv1alpha1.ApplySet) { s.Spec.Resources = configMaps(25) })
		readyFor(ctx, set)
		Expect(keys(liveConfigMaps(ctx, ns))).To(HaveLen(30), "a member no chunk proves any more was pruned")
		Expect(set.Status.ForeignMembers).NotTo(BeNil())
		Expect(set.Status.ForeignMembers.Count).To(Equal(int32(5)))
		recorded := chunkedMembers(ctx, set)
		Expect(keys(recorded)).To(HaveLen(25))
		Eventually(func() []string {
			events := &eventsv1.EventList{}
			Expect(k8sClient.List(ctx, events, client.InNamespace(ns))).To(Succeed())
			var reasons []string
			for _, e := range events.Items {
				reasons = append(reasons, e.Reason)
			}
			return reasons
		}).Should(ContainElement(ReasonInventoryLost))

		By("writing a lost chunk again, under a name of its own, though nothing else changed")
		lost := set.Status.Inventory.Chunks[0]
		Expect(k8sClient.Delete(ctx, &applyv1alpha1.ApplySetInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: lost.Name}})).To(Succeed())
		poke(ctx, set) // the operator watches no chunk: a person's edit wakes the set
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			again := set.Status.Inventory.Chunks[0]
			g.Expect(again.Name).NotTo(Equal(lost.Name))
			g.Expect(again.Digest).To(Equal(lost.Digest))
			g.Expect(chunksOf(ctx, ns, set)).To(HaveKey(again.Name))
		}).Should(Succeed(), "chunk %s stayed lost", lost.Name)
		Expect(chunkedMembers(ctx, set)).To(Equal(recorded))
	})

	It("holds a set too large for its status where the inventory policy is not in force", Serial, func(ctx context.Context) {
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "applyset-inventory"}, binding)).To(Succeed())
		Expect(k8sClient.Delete(ctx, binding)).To(Succeed())
		restore := func(ctx context.Context) {
			Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
				ObjectMeta: metav1.ObjectMeta{Name: binding.Name}, Spec: binding.Spec}))).To(Succeed())
		}
		DeferCleanup(restore)
		ns := newNamespace(ctx)
		Eventually(func() error {
			return asUser(InventoryProbeUser).Create(ctx, &applyv1alpha1.ApplySetInventory{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "probe"},
				Spec:       applyv1alpha1.ApplySetInventorySpec{Set: applyv1alpha1.InventorySet{Kind: "ApplySet", Name: "x", UID: "x"}}},
				client.DryRunAll)
		}).Should(Succeed(), "the API server still enforces the inventory policy")

		set := newSet(ns, "unguarded", configMaps(21)...)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(func() string {
			return ptr.Deref(condition(ctx, set, applyv1alpha1.ConditionReady)(), metav1.Condition{}).Reason
		}).Should(Equal(applyv1alpha1.ReasonInventoryUnprotected))
		Expect(liveConfigMaps(ctx, ns)).To(BeEmpty(), "a set was applied whose inventory anyone could forge")

		By("going on once the policy is back")
		restore(ctx)
		Eventually(func() bool {
			c := condition(ctx, set, applyv1alpha1.ConditionReady)()
			return c != nil && c.Status == metav1.ConditionTrue
		}).Should(BeTrue(), "the written binding did not wake the held set")
	})
})

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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// The inventory of a set too large for its status is written chunk by chunk
// before the status that names them. Here one chunk's write is refused, so
// that the others are written and the status is not, and the operator is
// stopped there, as a crash between chunk writes would leave it; a new one
// must finish the change with nothing deleted that the set did not prune,
// every member recorded, and, once the chunks the first one left are old
// enough to be no live writer's, no chunk that status does not name.
// Chunks of about 8 members make a set of 60 stand for one of 100,000.
var _ = Describe("The operator stopped between the writes of an inventory's chunks", func() {
	It("finishes the change with no wrong deletion and every member recorded", func(ctx context.Context) {
		layout := inventory.Layout{Inline: 20, PerChunk: 8}
		stop := runOperatorWith(layout)
		ns := tenantNamespace(ctx)
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "chunked"}}
		set.Spec.Resources = numberedConfigMaps(0, 60)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(ready(ctx, set)).WithTimeout(2 * time.Minute).Should(BeTrue())
		Expect(set.Status.Inventory).NotTo(BeNil())
		chunks := set.Status.Inventory.Chunks
		Expect(chunks).To(HaveLen(8))

		By("a ConfigMap labelled as a member by someone else, which must stay")
		foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "foreign",
			Labels: map[string]string{applyset.PartOfLabel: set.Status.ApplySetID}}}
		Expect(k8sClient.Create(ctx, foreign)).To(Succeed())

		By("refusing the write of the fourth chunk, then replacing a third of the members")
		refused := "refuse-chunk-" + ns
		refuseChunk(ctx, refused, chunks[3].Name[:strings.LastIndex(chunks[3].Name, "-")+1])
		versions := chunkVersions(ctx, ns, chunks)
		Expect(updateResources(ctx, set, numberedConfigMaps(20, 80))).To(Succeed())
		Eventually(func(g Gomega) {
			live := configMapUIDs(ctx, ns)
			for i := range 20 {
				g.Expect(live).NotTo(HaveKey(fmt.Sprintf("cm-%d", i)), "not pruned yet")
				g.Expect(live).To(HaveKey(fmt.Sprintf("cm-%d", 60+i)), "not applied yet")
			}
			g.Expect(len(chunksOf(ctx, ns, set.UID))).To(BeNumerically(">", len(chunks)), "no new chunk written yet")
		}).WithTimeout(2 * time.Minute).Should(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		Expect(set.Status.Inventory.Chunks).To(Equal(chunks), "the status was written though a chunk was refused")
		Expect(chunkVersions(ctx, ns, chunks)).To(Equal(versions), "a chunk status names was written over")

		By("stopping the operator there, and starting a new one, an hour on, once the chunk may be written")
		Expect(stop()).To(Succeed())
		Expect(k8sClient.Delete(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: refused}})).To(Succeed())
		stop = runOperatorWith(layout, clocktesting.NewFakePassiveClock(time.Now().Add(time.Hour)))
		DeferCleanup(func() { Expect(stop()).To(Succeed()) })
		Eventually(func() bool {
			if !ready(ctx, set)() {
				return false
			}
			recorded, err := inventory.Load(ctx, k8sClient, &set.Status, set.UID)
			return err == nil && recorded.Len() == 60
		}).WithTimeout(2*time.Minute).Should(BeTrue(), "the set never recorded its 60 members")

		live := configMapUIDs(ctx, ns)
		Expect(live).To(HaveKey("foreign"), "a ConfigMap the set did not apply was deleted")
		delete(live, "foreign")
		recorded, err := recordedUIDs(ctx, set)
		Expect(err).NotTo(HaveOccurred())
		Expect(recorded).To(Equal(live), "the inventory is not exactly the live members, by UID")
		Expect(live).To(HaveLen(60))
		var named []string
		for _, c := range set.Status.Inventory.Chunks {
			named = append(named, c.Name)
		}
		// They are collected right after the status that names the others.
		Eventually(func() []string { return chunksOf(ctx, ns, set.UID) }).Should(ConsistOf(named), "chunks that no status names were left")
	})
})

// runOperatorWith runs the operator with an inventory layout of small
// chunks, and the clock given, if any.
func runOperatorWith(layout inventory.Layout, clocks ...clock.PassiveClock) func() error {
	GinkgoHelper()
	return runOperatorAs(env.Config, layout, clocks...)
}

// runOperatorAs is runOperatorWith on cfg, a copy of env.Config whose
// requests go through a spec's round tripper.
func runOperatorAs(cfg *rest.Config, layout inventory.Layout, clocks ...clock.PassiveClock) func() error {
	GinkgoHelper()
	opts := applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default", InventoryLayout: layout}
	for _, c := range clocks {
		opts.Clock = c
	}
	stop, err := env.RunManagerAs(cfg, nil, func(mgr ctrl.Manager) error { return applysets.SetupWithManager(mgr, opts) })
	Expect(err).NotTo(HaveOccurred())
	return stop
}

// numberedConfigMaps declares ConfigMaps cm-from .. cm-(to-1).
func numberedConfigMaps(from, to int) []applyv1alpha1.Resource {
	GinkgoHelper()
	var out []applyv1alpha1.Resource
	for i := from; i < to; i++ {
		r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i)}, "data": map[string]any{"k": "v"}})
		Expect(err).NotTo(HaveOccurred())
		out = append(out, r)
	}
	return out
}

// refuseChunk installs, until the spec ends, a policy and a binding named
// name refusing every write of a chunk whose name starts with prefix.
func refuseChunk(ctx context.Context, name, prefix string) {
	GinkgoHelper()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{applyv1alpha1.GroupVersion.Group}, APIVersions: []string{"*"},
						Resources: []string{"applysetinventories"}},
				}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: fmt.Sprintf("!object.metadata.name.startsWith(%q)", prefix),
				Message: "refused by the spec"}},
		}}
	Expect(k8sClient.Create(ctx, policy)).To(Succeed())
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
	Expect(k8sClient.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, binding))).To(Succeed())
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, policy))).To(Succeed())
	})
	// The policy takes effect shortly after it is created.
	Eventually(func() error {
		chunk := &applyv1alpha1.ApplySetInventory{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: prefix + "probe"},
			Spec: applyv1alpha1.ApplySetInventorySpec{Set: applyv1alpha1.InventorySet{Kind: "ApplySet", Name: "x", UID: "x"}}}
		return k8sClient.Create(ctx, chunk, client.DryRunAll)
	}).Should(MatchError(ContainSubstring("refused by the spec")))
}

// recordedUIDs are the UIDs of the members set's record names, by name.
func recordedUIDs(ctx context.Context, set *applyv1alpha1.ApplySet) (map[string]types.UID, error) {
	recorded, err := inventory.Load(ctx, k8sClient, &set.Status, set.UID)
	if err != nil {
		return nil, err
	}
	out := map[string]types.UID{}
	for _, e := range recorded.Entries() {
		out[e.Ref.Name] = e.UID
	}
	return out, nil
}

// configMapUIDs are the ConfigMaps of ns by name.
func configMapUIDs(ctx context.Context, ns string) map[string]types.UID {
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

// chunkVersions are the resourceVersions of the chunks named.
func chunkVersions(ctx context.Context, ns string, named []applyv1alpha1.InventoryChunk) map[string]string {
	GinkgoHelper()
	out := map[string]string{}
	for _, c := range named {
		chunk := &applyv1alpha1.ApplySetInventory{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: c.Name}, chunk)).To(Succeed())
		out[c.Name] = chunk.ResourceVersion
	}
	return out
}

// chunksOf names the chunks of the set of uid in ns.
func chunksOf(ctx context.Context, ns string, uid types.UID) []string {
	GinkgoHelper()
	list := &applyv1alpha1.ApplySetInventoryList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{applyv1alpha1.InventoryOfLabel: string(uid)})).To(Succeed())
	var names []string
	for _, c := range list.Items {
		names = append(names, c.Name)
	}
	return names
}

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
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

const kept = "{apiVersion: v1, kind: ConfigMap, metadata: {name: kept}, data: {k: v}}\n"

// Each hostile source replaces a good one of a Ready set. The set must stall
// with a message that names the problem, record it as an Event, apply nothing
// and lose nothing: its member stays, labelled, and no other object joins it.
var _ = Describe("Hostile input", Ordered, func() {
	BeforeAll(func() { env.StartManager(setupOperator) })

	DescribeTable("is refused with a clear error, nothing applied, nothing lost",
		func(ctx context.Context, hostile, reason, message string) {
			ns := tenantNamespace(ctx)
			source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manifests"},
				BinaryData: map[string][]byte{"all.yaml": []byte(kept)}}
			Expect(k8sClient.Create(ctx, source)).To(Succeed())
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "set"}}
			set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: "manifests"}}
			Expect(k8sClient.Create(ctx, set)).To(Succeed())
			Eventually(ready(ctx, set)).Should(BeTrue())
			before := members(ctx, ns, set)
			Expect(before).To(ConsistOf("kept"))

			// Compressed, as a large source is: a ConfigMap holds at most 1 MiB.
			source.BinaryData["all.yaml"] = gzipped(kept + "---\n" + hostile)
			Expect(k8sClient.Update(ctx, source)).To(Succeed())
			Eventually(notReady(ctx, set)).Should(SatisfyAll(
				HaveField("Reason", reason), HaveField("Message", ContainSubstring(message))))
			Eventually(warnings(ctx, ns, set.Name)).Should(ContainElement(reason))

			Expect(members(ctx, ns, set)).To(Equal(before), "a member was lost, or an object joined the set")
			Expect(unlabelled(ctx, ns)).To(BeEmpty(), "an object was applied without the set's label")
		},
		Entry("an alias bomb", testenv.AliasBomb, applyv1alpha1.ReasonBudgetExceeded, "key all.yaml: would decode to more than 1000000 YAML nodes"),
		Entry("nesting 20,000 deep", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: "+
			strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+"\n", applyv1alpha1.ReasonInvalidInput, "exceeded max depth of 10000"),
		Entry("10,000 documents", manyDocuments(10000), applyv1alpha1.ReasonInvalidInput,
			"the set declares more than the limit of 5000 objects"),
		Entry("a million tiny maps in one object", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tiny}\ndata:\n  k:\n"+
			strings.Repeat("  - {}\n", 1_000_000), applyv1alpha1.ReasonBudgetExceeded,
			"key all.yaml: would decode to more than 1000000 YAML nodes"),
		Entry("invalid UTF-8", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {k: \xff\xfe}\n",
			applyv1alpha1.ReasonInvalidInput, "document 2: malformed YAML: yaml: invalid leading UTF-8 octet"),
		Entry("a key given twice", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: twice}\ndata: {k: a}\ndata: {k: b}\n",
			applyv1alpha1.ReasonInvalidInput, `key "data" already set in map`),
		Entry("a part-of label smuggled in", "{apiVersion: v1, kind: ConfigMap, metadata: {name: smuggled, labels: {"+
			applyset.PartOfLabel+": applyset-someone-else-v1}}}\n", applyv1alpha1.ReasonInvalidInput,
			"document 2: ConfigMap smuggled carries the applyset.kubernetes.io/part-of label; remove it: the operator sets it"),
		Entry("an object over the API server's size limit", fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: huge}\ndata: {k: %q}\n",
			strings.Repeat("x", 1<<20+1)), applyv1alpha1.ReasonApplyFailed, "ConfigMap \"huge\" is invalid: []: Too long: may not be more than 1048576 bytes"),
	)

	It("refuses a set whose ID label is not its own, and applies nothing", func(ctx context.Context) {
		ns := tenantNamespace(ctx)
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "set",
			Labels: map[string]string{applyset.IDLabel: applyset.ParentKey{Name: "other", Namespace: ns}.ID()}}}
		cm, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "never"}})
		Expect(err).NotTo(HaveOccurred())
		set.Spec.Resources = []applyv1alpha1.Resource{cm}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(notReady(ctx, set)).Should(HaveField("Reason", applyv1alpha1.ReasonIDMismatch))
		Consistently(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "never"}, &corev1.ConfigMap{})
		}).WithTimeout(2 * time.Second).ShouldNot(Succeed())
	})
})

func manyDocuments(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c%d}}\n---\n", i)
	}
	return b.String()
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.Bytes()
}

// tenantNamespace is a new namespace whose default ServiceAccount, which the
// sets act as, may do anything in it.
func tenantNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns, err := testenv.TenantNamespace(ctx, k8sClient, "hostile-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(suspendSets, ns)
	return ns
}

// suspendSets suspends the sets a spec leaves in ns, so that the operators
// of later specs, which share the API server, do not go on working on them.
func suspendSets(ctx context.Context, ns string) {
	var sets applyv1alpha1.ApplySetList
	Expect(k8sClient.List(ctx, &sets, client.InNamespace(ns))).To(Succeed())
	for i := range sets.Items {
		set := &sets.Items[i]
		patch := client.MergeFrom(set.DeepCopy())
		set.Spec.Suspend = ptr.To(true)
		Expect(client.IgnoreNotFound(k8sClient.Patch(ctx, set, patch))).To(Succeed())
	}
}

func ready(ctx context.Context, set *applyv1alpha1.ApplySet) func() bool {
	return func() bool {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		c := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == set.Generation
	}
}

// notReady returns the set's Ready condition while it is false for the
// set's generation, else an empty condition.
func notReady(ctx context.Context, set *applyv1alpha1.ApplySet) func() metav1.Condition {
	return func() metav1.Condition {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		c := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		if c == nil || c.Status != metav1.ConditionFalse {
			return metav1.Condition{}
		}
		return *c
	}
}

// members names the ConfigMaps of the namespace that carry the set's ID.
func members(ctx context.Context, ns string, set *applyv1alpha1.ApplySet) []string {
	GinkgoHelper()
	id := applyset.ParentKey{GroupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), Namespace: ns, Name: set.Name}.ID()
	list := &corev1.ConfigMapList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{applyset.PartOfLabel: id})).To(Succeed())
	names := make([]string, 0, len(list.Items))
	for _, cm := range list.Items {
		names = append(names, cm.Name)
	}
	return names
}

// unlabelled names the ConfigMaps of the namespace, besides the sources and
// the API server's own, that carry no part-of label.
func unlabelled(ctx context.Context, ns string) []string {
	GinkgoHelper()
	list := &corev1.ConfigMapList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, cm := range list.Items {
		if cm.Labels[applyset.PartOfLabel] == "" && cm.Name != "manifests" && cm.Name != "kube-root-ca.crt" {
			out = append(out, cm.Name)
		}
	}
	return out
}

// warnings returns the reasons of the Warning Events about the named set.
func warnings(ctx context.Context, ns, name string) func() []string {
	return func() []string {
		list := &eventsv1.EventList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		var reasons []string
		for _, e := range list.Items {
			if e.Regarding.Name == name && e.Type == corev1.EventTypeWarning {
				reasons = append(reasons, e.Reason)
			}
		}
		return reasons
	}
}

func keyOf(obj client.Object) client.ObjectKey { return client.ObjectKeyFromObject(obj) }

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

package membership

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("A snapshot", func() {
	It("reads every parent and its members once, and verifies them as the operator does", func(ctx context.Context) {
		home, other := snapshotNamespace(ctx), snapshotNamespace(ctx)
		key := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: home, Name: "set"}
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: home, Name: "set",
			Labels:      map[string]string{applyset.IDLabel: key.ID()},
			Annotations: map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: "ConfigMap"}}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "elsewhere",
			Labels: map[string]string{applyset.IDLabel: "applyset-elsewhere-v1"}}})).To(Succeed())
		applyMember(ctx, "ConfigMap", home, "a", key.ID())
		applyMember(ctx, "ServiceAccount", other, "b", key.ID())

		var progress []int
		snap, err := Read(ctx, snapshotOptions(), SnapshotOptions{Progress: func(done, _ int) { progress = append(progress, done) }})
		Expect(err).NotTo(HaveOccurred())
		Expect(progress).NotTo(BeEmpty())
		var names []string
		var parent Parent
		for _, p := range snap.Parents {
			if p.Ref.Namespace == home || p.Ref.Namespace == other {
				names = append(names, p.Ref.String())
			}
			if p.Ref.Namespace == home {
				parent = p
			}
		}
		Expect(names).To(ConsistOf("Secret "+home+"/set", "Secret "+other+"/elsewhere"))
		Expect(snap.Members(key.ID())).To(HaveLen(2))
		Expect(snap.Members(key.ID())[0].PartOfAppliedBy).To(ConsistOf("kubectl"))

		v := snap.Verify(parent, NewAppliers(map[string][]string{"kubectl": {"kubectl"}}))
		var reasons []string
		for _, p := range v.Problems {
			reasons = append(reasons, p.Reason)
		}
		Expect(reasons).To(ConsistOf(ReasonHintIncomplete, ReasonMemberOutOfScope))
		Expect(v.DesiredHint()).To(Equal("ConfigMap,ServiceAccount"))

		By("reading the parents of one namespace")
		snap, err = Read(ctx, snapshotOptions(), SnapshotOptions{Namespace: other})
		Expect(err).NotTo(HaveOccurred())
		Expect(snap.Parents).To(HaveLen(1))
		Expect(snap.Parents[0].Ref.Name).To(Equal("elsewhere"))
		Expect(snap.Members(key.ID())).To(HaveLen(2), "members are read everywhere")
	})

	It("keeps of each member who applied its label, its depends-on and its deletion", func(ctx context.Context) {
		ns := snapshotNamespace(ctx)
		id := "applyset-snapshot-kept-v1"
		applyMember(ctx, "ConfigMap", ns, "applied", id)
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "updated",
			Labels:      map[string]string{applyset.PartOfLabel: id},
			Annotations: map[string]string{apply.DependsOnAnnotation: "/namespaces/" + ns + "/ConfigMap/applied"},
			Finalizers:  []string{"example.com/hold"}}})).To(Succeed())
		updated := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "updated"}}
		Expect(k8sClient.Delete(ctx, updated)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(k8sClient.Patch(ctx, updated, client.RawPatch(types.MergePatchType,
				[]byte(`{"metadata":{"finalizers":null}}`))))).To(Succeed())
		})

		snap, err := Read(ctx, snapshotOptions(), SnapshotOptions{Namespace: ns})
		Expect(err).NotTo(HaveOccurred())
		Expect(snap.Members(id)).To(HaveExactElements(
			SatisfyAll(HaveField("Name", "applied"), HaveField("PartOfAppliedBy", ConsistOf("kubectl")),
				HaveField("DependsOn", BeEmpty()), HaveField("DeletionTimestamp", BeNil())),
			SatisfyAll(HaveField("Name", "updated"), HaveField("PartOfAppliedBy", BeEmpty()),
				HaveField("DependsOn", "/namespaces/"+ns+"/ConfigMap/applied"), HaveField("DeletionTimestamp", Not(BeNil()))),
		))
	})
})

func snapshotNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "snapshot-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// applyMember writes a core object claiming setID as kubectl apply --server-side would.
func applyMember(ctx context.Context, kind, namespace, name, setID string) {
	GinkgoHelper()
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("v1")
	obj.SetKind(kind)
	obj.SetNamespace(namespace)
	obj.SetName(name)
	obj.SetLabels(map[string]string{applyset.PartOfLabel: setID})
	Expect(k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("kubectl"))).To(Succeed())
}

func snapshotOptions() Options {
	disco, err := discovery.NewDiscoveryClientForConfig(env.Config)
	Expect(err).NotTo(HaveOccurred())
	meta, err := metadata.NewForConfig(env.Config)
	Expect(err).NotTo(HaveOccurred())
	return Options{Discovery: disco, Metadata: meta}
}

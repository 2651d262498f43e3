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

package apply

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("An apply that leaves drift", func() {
	var (
		ns     string
		engine *Engine
		setID  string
	)
	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "drift-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns = namespace.Name
		engine = &Engine{Client: k8sClient, FieldManager: fieldManager}
		setID = applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: ns, Name: "set"}.ID()
	})

	objects := func(data string) []Object {
		inputs, err := Decode("test", fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: %s\n", data))
		Expect(err).NotTo(HaveOccurred())
		objs, _, err := Check(inputs, Target{Scope: applyset.Scope{Namespace: ns}, DefaultNamespace: ns, Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		return objs
	}
	// edit changes the ConfigMap with a merge patch, as kubectl edit does.
	edit := func(ctx context.Context, patch string) {
		GinkgoHelper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}}
		Expect(k8sClient.Patch(ctx, cm, client.RawPatch("application/merge-patch+json", []byte(patch)), client.FieldOwner("kubectl-edit"))).To(Succeed())
	}
	data := func(ctx context.Context) map[string]string {
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, cm)).To(Succeed())
		return cm.Data
	}

	It("leaves an unchanged declaration's drift, names who made it, previews the same, and applies a changed declaration", func(ctx context.Context) {
		leave := ApplyOptions{SetID: setID, LeaveDrift: true}
		_, err := engine.Apply(ctx, objects("{k: v, gone: x}"), leave)
		Expect(err).NotTo(HaveOccurred())
		edit(ctx, `{"data":{"k":"edited","gone":null}}`)

		preview := leave
		preview.DryRun = true
		previewed, err := engine.Apply(ctx, objects("{k: v, gone: x}"), preview)
		Expect(err).NotTo(HaveOccurred())
		applied, err := engine.Apply(ctx, objects("{k: v, gone: x}"), leave)
		Expect(err).NotTo(HaveOccurred())
		for _, cs := range []ChangeSet{previewed, applied} {
			Expect(cs.Changes).To(ConsistOf(HaveField("Action", Unchanged)))
			Expect(cs.DriftLeft).To(ConsistOf(SatisfyAll(HaveField("Manager", "kubectl-edit"), HaveField("Fields", ConsistOf(".data.k")))))
			Expect(cs.Drift).To(BeEmpty())
			Expect(cs.Intent).To(BeEmpty(), "a plan to approve holds no write of drift left in place")
		}
		Expect(previewed.Changes[0].Live.Object).To(HaveKeyWithValue("data", HaveKeyWithValue("k", "edited")))
		Expect(previewed.Changes[0].Preview.Object).To(HaveKeyWithValue("data", HaveKeyWithValue("k", "v")))
		Expect(data(ctx)).To(Equal(map[string]string{"k": "edited"}))

		By("once the conflict is gone, a removed field is drift of no known manager")
		edit(ctx, `{"data":{"k":"v"}}`)
		applied, err = engine.Apply(ctx, objects("{k: v, gone: x}"), leave)
		Expect(err).NotTo(HaveOccurred())
		Expect(applied.DriftLeft).To(ConsistOf(SatisfyAll(HaveField("Manager", unknownManager), HaveField("Fields", ConsistOf(".data.gone")))))

		By("a changed declaration is applied, and takes its fields back")
		edit(ctx, `{"data":{"k":"edited"}}`)
		applied, err = engine.Apply(ctx, objects("{k: v, gone: x, new: z}"), leave)
		Expect(err).NotTo(HaveOccurred())
		Expect(applied.Changes).To(ConsistOf(HaveField("Action", Configured)))
		Expect(applied.DriftLeft).To(BeEmpty())
		Expect(applied.Drift).To(ConsistOf(HaveField("Manager", "kubectl-edit")))
		Expect(data(ctx)).To(Equal(map[string]string{"k": "v", "gone": "x", "new": "z"}))
	})
})

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
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

const kubectlClientSide = "kubectl-client-side-apply"

var _ = Describe("Taking over objects kubectl applied client-side", func() {
	var (
		ns     string
		engine *Engine
		writes *atomic.Int64
		setID  string
	)

	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "handover-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns = namespace.Name
		engine, writes = countingWrites()
		setID = applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: ns, Name: "set"}.ID()
	})

	objects := func(yaml string) []Object {
		GinkgoHelper()
		inputs, err := Decode("test", []byte(yaml))
		Expect(err).NotTo(HaveOccurred())
		objs, _, err := Check(inputs, Target{Scope: applyset.Scope{Namespace: ns}, DefaultNamespace: ns, Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		return objs
	}
	apply := func(ctx context.Context, yaml string) ChangeSet {
		GinkgoHelper()
		cs, err := engine.Apply(ctx, objects(yaml), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		return cs
	}
	// createAsKubectl creates the manifest as kubectl's client-side apply
	// does: the manifest recorded in the last-applied annotation, the object
	// created as an update by kubectl's client-side manager.
	createAsKubectl := func(ctx context.Context, manifest string) {
		GinkgoHelper()
		obj := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal([]byte(manifest), &obj.Object)).To(Succeed())
		obj.SetNamespace(ns)
		recorded, err := json.Marshal(obj.Object)
		Expect(err).NotTo(HaveOccurred())
		obj.SetAnnotations(map[string]string{LastAppliedAnnotation: string(recorded)})
		Expect(k8sClient.Create(ctx, obj, client.FieldOwner(kubectlClientSide))).To(Succeed())
	}
	kubectlApply := func(ctx context.Context, manifest string) {
		GinkgoHelper()
		out, err := env.Kubectl(ctx, manifest, "apply", "--namespace", ns, "-f", "-")
		Expect(err).NotTo(HaveOccurred(), out)
	}
	getConfigMap := func(ctx context.Context, name string) *corev1.ConfigMap {
		GinkgoHelper()
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)).To(Succeed())
		return cm
	}
	configMap := func(name string, data string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {%s}\n---\n", name, data)
	}

	It("removes a key the set stops declaring, and leaves every field it never declared as it is", func(ctx context.Context) {
		createAsKubectl(ctx, configMap("legacy", "a: '1', b: '2', c: kubectl-only"))
		// A label added by hand, and a key another tool applies.
		Expect(k8sClient.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "legacy"}},
			client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"blue"}}}`)), client.FieldOwner("kubectl-label"))).To(Succeed())
		flux := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": ns, "name": "legacy"}, "data": map[string]any{"flux": "applied"}}}
		Expect(k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(flux), client.FieldOwner("kustomize-controller"))).To(Succeed())
		before := getConfigMap(ctx, "legacy")

		cs := apply(ctx, configMap("legacy", "a: '1', b: '2'"))
		Expect(cs.Changes).To(ConsistOf(SatisfyAll(HaveField("Action", Configured),
			HaveField("HandedOver", Equal([]string{kubectlClientSide})),
			HaveField("Fields", ContainElement(".metadata.annotations."+LastAppliedAnnotation)),
			HaveField("Reason", ContainSubstring("ownership of "+kubectlClientSide+" and the "+LastAppliedAnnotation+" annotation removed")))))
		adopted := getConfigMap(ctx, "legacy")
		Expect(adopted.Annotations).NotTo(HaveKey(LastAppliedAnnotation))
		Expect(managers(adopted.ManagedFields)).To(ConsistOf(
			fieldManager+"/Apply", "kustomize-controller/Apply", "kubectl-label/Update"))
		Expect(ownedPaths(adopted.ManagedFields, fieldManager)).To(ConsistOf("data.a", "data.b",
			"metadata.labels."+applyset.PartOfLabel, "metadata.annotations."+appliedConfigAnnotation),
			"the set owns other fields than those it declared")

		writes.Store(0)
		Expect(apply(ctx, configMap("legacy", "a: '1', b: '2'")).Changes).To(ConsistOf(HaveField("Action", Unchanged)))
		Expect(writes.Load()).To(BeZero(), "the handed-over object is written again")

		cs = apply(ctx, configMap("legacy", "a: '1'"))
		Expect(cs.Changes).To(ConsistOf(SatisfyAll(HaveField("Action", Configured), HaveField("Fields", Equal([]string{".data.b"})),
			HaveField("HandedOver", BeEmpty()))))
		apply(ctx, configMap("legacy", "a: '2'"))
		after := getConfigMap(ctx, "legacy")
		Expect(after.Data).To(Equal(map[string]string{"a": "2", "c": "kubectl-only", "flux": "applied"}))
		Expect(after.Labels).To(HaveKeyWithValue("team", "blue"))
		Expect(after.UID).To(Equal(before.UID), "the object was recreated")
	})

	It("keeps the replicas kubectl applied and the set does not declare, and the Deployment's spec", func(ctx context.Context) {
		deployment := func(replicas, image string) string {
			return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  %s
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: %q}
`, replicas, image)
		}
		kubectlApply(ctx, deployment("replicas: 3", "nginx:1.27"))
		get := func() *appsv1.Deployment {
			GinkgoHelper()
			d := &appsv1.Deployment{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, d)).To(Succeed())
			return d
		}
		before := get()
		Expect(before.Annotations).To(HaveKey(LastAppliedAnnotation), "kubectl did not apply client-side")
		Expect(managers(before.ManagedFields)).To(ContainElement(kubectlClientSide + "/Update"))

		cs := apply(ctx, deployment("", "nginx:1.27"))
		Expect(cs.Changes).To(ConsistOf(HaveField("HandedOver", Equal([]string{kubectlClientSide}))))
		adopted := get()
		Expect(adopted.Annotations).NotTo(HaveKey(LastAppliedAnnotation))
		Expect(managers(adopted.ManagedFields)).NotTo(ContainElement(HavePrefix(kubectlClientSide)))
		Expect(adopted.UID).To(Equal(before.UID))
		Expect(adopted.Spec).To(Equal(before.Spec), "taking the Deployment over changed its spec")
		// A Deployment counts annotation changes as generations: the digest
		// the apply adds, and the annotation the handover removes; nothing else.
		Expect(adopted.Generation).To(Equal(before.Generation + 2))
		Expect(*adopted.Spec.Replicas).To(BeEquivalentTo(3))

		writes.Store(0)
		Expect(apply(ctx, deployment("", "nginx:1.27")).Changes).To(ConsistOf(HaveField("Action", Unchanged)))
		Expect(writes.Load()).To(BeZero(), "the handed-over object is written again")

		apply(ctx, deployment("", "nginx:1.28"))
		after := get()
		Expect(*after.Spec.Replicas).To(BeEquivalentTo(3), "a later apply removed replicas the set never declared")
		Expect(after.Spec.Template.Spec.Containers[0].Image).To(Equal("nginx:1.28"))
		Expect(after.UID).To(Equal(before.UID))
	})

	It("takes over 200 ConfigMaps kubectl applied, and then removes a key from each", func(ctx context.Context) {
		const count = 200
		var legacy, adopt, dropped strings.Builder
		for i := range count {
			legacy.WriteString(configMap(fmt.Sprintf("cm-%03d", i), "keep: '1', drop: '2'"))
			adopt.WriteString(configMap(fmt.Sprintf("cm-%03d", i), "keep: '1', drop: '2'"))
			dropped.WriteString(configMap(fmt.Sprintf("cm-%03d", i), "keep: '1'"))
		}
		kubectlApply(ctx, legacy.String())
		uids := map[string]types.UID{}
		list := &corev1.ConfigMapList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		for _, cm := range list.Items {
			if strings.HasPrefix(cm.Name, "cm-") {
				Expect(cm.Annotations).To(HaveKey(LastAppliedAnnotation))
				uids[cm.Name] = cm.UID
			}
		}
		Expect(uids).To(HaveLen(count))

		cs := apply(ctx, adopt.String())
		Expect(cs.Changes).To(HaveLen(count))
		Expect(cs.Changes).To(HaveEach(HaveField("HandedOver", Equal([]string{kubectlClientSide}))))
		cs = apply(ctx, dropped.String())
		Expect(cs.Count(Configured)).To(Equal(count))

		Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		seen := 0
		for _, cm := range list.Items {
			if uid, ok := uids[cm.Name]; ok {
				seen++
				Expect(cm.Data).To(Equal(map[string]string{"keep": "1"}), cm.Name)
				Expect(cm.UID).To(Equal(uid), "%s was recreated", cm.Name)
				Expect(cm.Annotations).NotTo(HaveKey(LastAppliedAnnotation), cm.Name)
				Expect(managers(cm.ManagedFields)).To(Equal([]string{fieldManager + "/Apply"}), cm.Name)
			}
		}
		Expect(seen).To(Equal(count))
	})

	It("previews the handover and writes nothing in a dry run", func(ctx context.Context) {
		createAsKubectl(ctx, configMap("legacy", "a: '1', b: '2'"))
		before := getConfigMap(ctx, "legacy")

		writes.Store(0)
		preview, err := engine.Apply(ctx, objects(configMap("legacy", "a: '1'")), ApplyOptions{SetID: setID, DryRun: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(preview.Changes).To(ConsistOf(SatisfyAll(HaveField("Action", Configured),
			HaveField("HandedOver", Equal([]string{kubectlClientSide})),
			HaveField("Reason", ContainSubstring("would be removed")))))
		Expect(preview.Changes[0].Preview.GetAnnotations()).NotTo(HaveKey(LastAppliedAnnotation))
		after := getConfigMap(ctx, "legacy")
		Expect(after.ResourceVersion).To(Equal(before.ResourceVersion), "a dry run wrote the object")
		Expect(after.Annotations).To(HaveKey(LastAppliedAnnotation))
		Expect(managers(after.ManagedFields)).To(Equal([]string{kubectlClientSide + "/Update"}))

		cs := apply(ctx, configMap("legacy", "a: '1'"))
		Expect(cs.Changes[0].Fields).To(Equal(preview.Changes[0].Fields), "the preview differs from the apply")
		Expect(cs.Changes[0].HandedOver).To(Equal(preview.Changes[0].HandedOver))
	})

	It("hands over only the managers it is told to, also of an object it applied already", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "helm"},
			Data: map[string]string{"a": "1", "b": "2"}}, client.FieldOwner("helm"))).To(Succeed())
		cs := apply(ctx, configMap("helm", "a: '1', b: '2'"))
		Expect(cs.Changes).To(ConsistOf(HaveField("HandedOver", BeEmpty())))
		Expect(managers(getConfigMap(ctx, "helm").ManagedFields)).To(ContainElement("helm/Update"))

		engine.LegacyManagers = []string{"helm"}
		cs = apply(ctx, configMap("helm", "a: '1', b: '2'"))
		Expect(cs.Changes).To(ConsistOf(HaveField("HandedOver", Equal([]string{"helm"}))))
		cs = apply(ctx, configMap("helm", "a: '1'"))
		Expect(cs.Changes).To(ConsistOf(HaveField("Fields", Equal([]string{".data.b"}))))
		cm := getConfigMap(ctx, "helm")
		Expect(cm.Data).To(Equal(map[string]string{"a": "1"}))
		Expect(managers(cm.ManagedFields)).To(Equal([]string{fieldManager + "/Apply"}))
	})

	It("reads an object that changed between its apply and its handover again, and hands over what is there then", func(ctx context.Context) {
		createAsKubectl(ctx, configMap("busy", "a: '1'"))
		var patches atomic.Int64
		engine.Client = interceptor.NewClient(engine.Client.(client.WithWatch), interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				if patches.Add(1) == 1 {
					// kubectl applies again between the engine's apply and its handover.
					Expect(c.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "busy"}},
						client.RawPatch(types.MergePatchType, []byte(`{"data":{"late":"x"}}`)), client.FieldOwner(kubectlClientSide))).To(Succeed())
				}
				return c.Patch(ctx, obj, patch, opts...)
			},
		})

		cs := apply(ctx, configMap("busy", "a: '1'"))
		Expect(cs.Changes).To(ConsistOf(HaveField("HandedOver", Equal([]string{kubectlClientSide}))))
		Expect(patches.Load()).To(BeEquivalentTo(2), "the handover did not notice the concurrent write")
		cm := getConfigMap(ctx, "busy")
		Expect(cm.Data).To(Equal(map[string]string{"a": "1", "late": "x"}))
		Expect(managers(cm.ManagedFields)).To(Equal([]string{fieldManager + "/Apply"}))
	})
})

// countingWrites is an engine whose client counts the writes it makes.
func countingWrites() (*Engine, *atomic.Int64) {
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: k8sClient.Scheme(), Mapper: k8sClient.RESTMapper()})
	Expect(err).NotTo(HaveOccurred())
	writes := &atomic.Int64{}
	count := func() { writes.Add(1) }
	counted := interceptor.NewClient(c, interceptor.Funcs{
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			count()
			return c.Apply(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			count()
			return c.Patch(ctx, obj, patch, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			count()
			return c.Update(ctx, obj, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			count()
			return c.Create(ctx, obj, opts...)
		},
	})
	return &Engine{Client: counted, FieldManager: fieldManager}, writes
}

// managers names the entries of managed fields as manager/operation.
func managers(entries []metav1.ManagedFieldsEntry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Manager+"/"+string(e.Operation))
	}
	return out
}

// ownedPaths are the leaf fields manager applied, as a.b.c.
func ownedPaths(entries []metav1.ManagedFieldsEntry, manager string) []string {
	owned, ok := ownedLeaves(entries, manager)
	Expect(ok).To(BeTrue())
	out := make([]string, 0, len(owned))
	for path := range owned {
		out = append(out, strings.ReplaceAll(path, "\x00", "."))
	}
	return out
}

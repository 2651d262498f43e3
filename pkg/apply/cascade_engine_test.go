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
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("The cascade guard", func() {
	var (
		team   string // a namespace the test's set does not own
		engine *Engine
		setID  string
	)

	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cascade-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		team = namespace.Name
		engine = &Engine{Client: k8sClient, FieldManager: fieldManager, Discovery: discovery.NewDiscoveryClientForConfigOrDie(env.Config)}
		setID = applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ClusterApplySet"}, Name: team}.ID()
	})

	// objects decodes and checks YAML for a cluster-scoped set reaching namespaces.
	objects := func(yaml string, namespaces ...string) []Object {
		GinkgoHelper()
		inputs, err := Decode("test", []byte(yaml))
		Expect(err).NotTo(HaveOccurred())
		objs, _, err := Check(inputs, Target{Scope: applyset.Scope{AdditionalNamespaces: sets.New(namespaces...)}, Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		return objs
	}
	pruneAll := func(kinds ...schema.GroupKind) PruneOptions {
		return PruneOptions{SetID: setID, Scope: applyset.Scope{AdditionalNamespaces: sets.New(team)}, Kinds: sets.New(kinds...),
			Keep: sets.New[ObjectRef](), Proven: LabelAppliedBy(sets.New(fieldManager))}
	}
	// prune previews opts, then prunes, and expects both to decide alike.
	prune := func(ctx context.Context, opts PruneOptions) ChangeSet {
		GinkgoHelper()
		dry := opts
		dry.DryRun = true
		preview, err := engine.Prune(ctx, dry)
		Expect(err).NotTo(HaveOccurred())
		cs, err := engine.Prune(ctx, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.Changes).To(Equal(preview.Changes), "the preview decided otherwise")
		return cs
	}
	change := func(cs ChangeSet, gk schema.GroupKind, name string) Change {
		GinkgoHelper()
		for _, c := range cs.Changes {
			if c.Ref.GroupKind == gk && c.Ref.Name == name {
				return c
			}
		}
		Fail(fmt.Sprintf("no change for %s %s in %+v", gk, name, cs.Changes))
		return Change{}
	}
	deletionStarted := func(ctx context.Context, obj client.Object) func() bool {
		return func() bool {
			err := k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)
			Expect(client.IgnoreNotFound(err)).To(Succeed())
			return apierrors.IsNotFound(err) || !obj.GetDeletionTimestamp().IsZero()
		}
	}

	Context("on a CustomResourceDefinition", func() {
		var group string
		widgetKind := func() schema.GroupKind { return schema.GroupKind{Group: group, Kind: "Widget"} }
		widget := func(name string) string {
			return fmt.Sprintf("apiVersion: %s/v1\nkind: Widget\nmetadata: {name: %s, namespace: %s}\n---\n", group, name, team)
		}
		crd := func() string {
			return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.%[1]s}
spec:
  group: %[1]s
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
---
`, group)
		}
		BeforeEach(func() { group = team + ".example.com" })

		It("keeps it while objects of its kind the prune does not delete exist, and lets it go when allowed", func(ctx context.Context) {
			_, err := engine.Apply(ctx, objects(crd()+widget("mine"), team), ApplyOptions{SetID: setID})
			Expect(err).NotTo(HaveOccurred())
			theirs := &unstructured.Unstructured{}
			theirs.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"})
			theirs.SetNamespace(team)
			theirs.SetName("theirs")
			Eventually(func() error { return k8sClient.Create(ctx, theirs) }).Should(Succeed())

			opts := pruneAll(crdKind, widgetKind())
			cs := prune(ctx, opts)
			Expect(change(cs, widgetKind(), "mine").Action).To(Equal(Pruned))
			kept := change(cs, crdKind, "widgets."+group)
			Expect(kept.Action).To(Equal(Skipped))
			Expect(kept.Reason).To(SatisfyAll(ContainSubstring("1 Widget."+group+" that this prune does not delete still exists ("+team+"/theirs)"),
				ContainSubstring(CascadeAnnotation+": allow")))
			live := &metav1.PartialObjectMetadata{}
			live.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
			live.SetName("widgets." + group)
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(live), live)).To(Succeed())
			Expect(live.DeletionTimestamp).To(BeNil(), "the CRD was deleted with another's Widget in the cluster")
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(theirs), theirs)).To(Succeed())

			opts.Cascade = func(ref ObjectRef) bool { return ref.GroupKind == crdKind }
			cs = prune(ctx, opts)
			Expect(change(cs, crdKind, "widgets."+group).Action).To(Equal(Pruned))
			Eventually(deletionStarted(ctx, live)).Should(BeTrue())

			By("finding nothing of a kind whose CRD went away, where the client still maps it")
			Eventually(func() bool { return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(live), live)) }).Should(BeTrue())
			cs, err = engine.Prune(ctx, pruneAll(crdKind, widgetKind()))
			Expect(err).NotTo(HaveOccurred())
			Expect(cs.Changes).To(BeEmpty())
		})

		It("deletes it when only members the prune deletes are left of its kind", func(ctx context.Context) {
			_, err := engine.Apply(ctx, objects(crd()+widget("a")+widget("b"), team), ApplyOptions{SetID: setID})
			Expect(err).NotTo(HaveOccurred())
			cs, err := engine.Prune(ctx, pruneAll(crdKind, widgetKind()))
			Expect(err).NotTo(HaveOccurred())
			Expect(cs.Changes).To(HaveEach(HaveField("Action", Pruned)))
			Expect(cs.Changes).To(HaveLen(3))
		})
	})

	Context("on a Namespace", func() {
		var fresh string // the namespace the set applies
		BeforeEach(func() { fresh = "own-" + team })
		namespace := func() string {
			return fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n---\n", fresh)
		}
		inFresh := func(kind, name string) string {
			return fmt.Sprintf("apiVersion: v1\nkind: %s\nmetadata: {name: %s, namespace: %s}\n---\n", kind, name, fresh)
		}
		service := func(name string) string {
			return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: %s, namespace: %s}\nspec: {ports: [{port: 80}]}\n---\n", name, fresh)
		}
		create := func(ctx context.Context, obj client.Object) {
			GinkgoHelper()
			obj.SetNamespace(fresh)
			Expect(k8sClient.Create(ctx, obj)).To(Succeed())
		}
		freshNamespace := func() *corev1.Namespace { return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fresh}} }
		opts := func() PruneOptions {
			o := pruneAll(namespaceKind, configMapKind, serviceKind)
			o.Scope.AdditionalNamespaces.Insert(fresh)
			return o
		}

		It("deletes it when it holds only what the prune deletes, what that owns, and what Kubernetes puts there", func(ctx context.Context) {
			applied, err := engine.Apply(ctx, objects(namespace()+inFresh("ConfigMap", "app")+service("web"), fresh), ApplyOptions{SetID: setID})
			Expect(err).NotTo(HaveOccurred())
			var app *unstructured.Unstructured
			for _, c := range applied.Changes {
				if c.Ref.Name == "app" {
					app = c.Object
				}
			}
			Expect(app).NotTo(BeNil())

			By("adding what Kubernetes would, and what a controller makes for a member")
			create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
			create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt"}})
			create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "default-token",
				Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}}, Type: corev1.SecretTypeServiceAccountToken})
			create(ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "web"}}) //nolint:staticcheck // as the endpoints controller writes
			create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "app.1"},
				InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: fresh, Name: "app"}})
			owned := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made-for-app",
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "app", UID: app.GetUID()}}}}
			create(ctx, owned)
			create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "made-for-that",
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owned.Name, UID: owned.UID}}}})

			cs := prune(ctx, opts())
			Expect(change(cs, namespaceKind, fresh).Action).To(Equal(Pruned), "%+v", cs.Changes)
			Eventually(deletionStarted(ctx, freshNamespace())).Should(BeTrue())
		})

		It("keeps it while others' objects live in it, naming them, and lets it go when allowed", func(ctx context.Context) {
			_, err := engine.Apply(ctx, objects(namespace()+inFresh("ConfigMap", "app"), fresh), ApplyOptions{SetID: setID})
			Expect(err).NotTo(HaveOccurred())
			create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "theirs"}})
			// A token Secret of an account that stays is someone's credential.
			create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}})

			o := opts()
			cs := prune(ctx, o)
			Expect(change(cs, configMapKind, "app").Action).To(Equal(Pruned))
			kept := change(cs, namespaceKind, fresh)
			Expect(kept.Action).To(Equal(Skipped))
			Expect(kept.Reason).To(SatisfyAll(
				ContainSubstring("2 objects that this prune does not delete live in it (ConfigMap theirs, ServiceAccount robot)"),
				ContainSubstring(CascadeAnnotation+": allow")))
			ns := freshNamespace()
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ns), ns)).To(Succeed())
			Expect(ns.DeletionTimestamp).To(BeNil(), "the Namespace was deleted with others' objects in it")
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: fresh, Name: "theirs"}, &corev1.ConfigMap{})).To(Succeed())

			o.Cascade = func(ref ObjectRef) bool { return ref.GroupKind == namespaceKind }
			cs = prune(ctx, o)
			Expect(change(cs, namespaceKind, fresh).Action).To(Equal(Pruned))
			Eventually(deletionStarted(ctx, ns)).Should(BeTrue())
		})

		It("keeps it when its identity cannot list every type in it", func(ctx context.Context) {
			_, err := engine.Apply(ctx, objects(namespace()+inFresh("ConfigMap", "app"), fresh), ApplyOptions{SetID: setID})
			Expect(err).NotTo(HaveOccurred())
			user := "system:serviceaccount:" + team + ":namespaces-and-configmaps"
			Expect(k8sClient.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: team},
				Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"namespaces", "configmaps"},
					Verbs: []string{"get", "list", "delete"}}}})).To(Succeed())
			Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: team},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: team},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user}}})).To(Succeed())
			DeferCleanup(func(ctx context.Context) {
				Expect(k8sClient.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: team}})).To(Succeed())
				Expect(k8sClient.Delete(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: team}})).To(Succeed())
			})
			cfg := rest.CopyConfig(env.Config)
			cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
			restricted, err := client.New(cfg, client.Options{Scheme: k8sClient.Scheme(), Mapper: k8sClient.RESTMapper()})
			Expect(err).NotTo(HaveOccurred())
			engine = &Engine{Client: restricted, FieldManager: fieldManager, Discovery: discovery.NewDiscoveryClientForConfigOrDie(cfg)}

			o := pruneAll(namespaceKind, configMapKind)
			o.Scope.AdditionalNamespaces = sets.New(fresh)
			var cs ChangeSet
			Eventually(func() error { // until the binding is in the authorizer's cache
				cs, err = engine.Prune(ctx, o)
				return err
			}).Should(Succeed())
			Expect(change(cs, configMapKind, "app").Action).To(Equal(Pruned))
			kept := change(cs, namespaceKind, fresh)
			Expect(kept.Action).To(Equal(Skipped))
			Expect(kept.Reason).To(SatisfyAll(ContainSubstring("cannot tell that it holds nothing else, as it cannot list"),
				ContainSubstring("(forbidden)")))
			ns := freshNamespace()
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ns), ns)).To(Succeed())
			Expect(ns.DeletionTimestamp).To(BeNil())
		})
	})
})

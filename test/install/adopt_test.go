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

package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/google/go-cmp/cmp"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("kubectl applyset adopt", Ordered, func() {
	var pluginDir string

	BeforeAll(func(ctx context.Context) {
		pluginDir = buildPlugin(ctx)
		// Flux serves Kustomizations as v1, Argo CD Applications and
		// kpt serves ResourceGroups as v1alpha1.
		application := testenv.OpenCRD("argoproj.io", "Application")
		application.Spec.Versions[0].Name = "v1alpha1"
		resourceGroup := testenv.OpenCRD("kpt.dev", "ResourceGroup")
		resourceGroup.Spec.Versions[0].Name = "v1alpha1"
		for _, crd := range []client.Object{testenv.OpenCRD("kustomize.toolkit.fluxcd.io", "Kustomization"), application, resourceGroup} {
			if err := env.Client.Create(ctx, crd); !apierrors.IsAlreadyExists(err) {
				Expect(err).NotTo(HaveOccurred())
			}
		}
	})

	plugin := func(ctx context.Context, stdin string, args ...string) (string, int) {
		stdout, stderr, code := runPlugin(ctx, pluginDir, stdin, args...)
		return stdout + stderr, code
	}
	adopts := func(ctx context.Context, args ...string) string {
		GinkgoHelper()
		out, code := plugin(ctx, "", append([]string{"adopt"}, args...)...)
		Expect(code).To(BeZero(), out)
		return out
	}
	refused := func(ctx context.Context, args ...string) string {
		GinkgoHelper()
		out, code := plugin(ctx, "", append([]string{"adopt"}, args...)...)
		Expect(code).NotTo(BeZero(), out)
		Expect(out).To(ContainSubstring("nothing changed"))
		return out
	}
	kubectl := kubectlSucceeds
	// create writes a custom resource once the API server serves its type:
	// a CRD is served a little after it is created.
	create := func(ctx context.Context, manifest string) {
		GinkgoHelper()
		Eventually(func() error {
			out, err := env.Kubectl(ctx, manifest, "create", "-f", "-")
			if err != nil {
				return fmt.Errorf("%w: %s", err, out)
			}
			return nil
		}).Should(Succeed())
	}
	secretID := func(ns, name string) string {
		return applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: ns, Name: name}.ID()
	}
	configMapID := func(ns, name string) string {
		return applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: ns, Name: name}.ID()
	}

	It("adopts what kubectl apply --prune -l pruned, and kubectl's next apply --applyset prunes exactly the object it no longer declares", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		id := secretID(ns, "web")
		const cmA = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a, labels: {app: web}}, data: {k: v}}\n---\n"
		const cmB = "{apiVersion: v1, kind: ConfigMap, metadata: {name: b, labels: {app: web}}, data: {k: v}}\n---\n"
		const deploy = `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, labels: {app: web}}, spec: {selector: {matchLabels: {app: web}},
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
`
		By("applying client-side with kubectl, as its legacy prune requires")
		kubectl(ctx, cmA+cmB+deploy, "apply", "-n", ns, "-f", "-")
		kubectl(ctx, "", "create", "configmap", "manual", "-n", ns)
		kubectl(ctx, "", "label", "configmap/manual", "-n", ns, "app=web")
		before := testenv.ConfigMapUIDs(ctx, env.Client, ns, "a", "b", "manual")
		d := &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, d)).To(Succeed())

		out := adopts(ctx, "secret/web", "-n", ns, "-l", "app=web", "--kinds", "ConfigMap,Deployment.apps", "--yes")
		Expect(out).To(ContainSubstring("kubectl-client-side-apply (Update)"), "the plan shows each object's field managers")
		Expect(out).To(ContainSubstring("left out: ConfigMap " + ns + "/manual: no kubectl.kubernetes.io/last-applied-configuration"))
		Expect(out).To(ContainSubstring("3 objects adopted"))

		for _, name := range []string{"a", "b"} {
			cm := &corev1.ConfigMap{}
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)).To(Succeed())
			Expect(cm.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, id))
			Expect(applyset.PartOfAppliers(cm.ManagedFields)).To(Equal([]string{"kubectl"}), "the label is applied under kubectl's field manager")
			Expect(kubectlEntry(cm.ManagedFields)).To(MatchJSON(`{"f:metadata":{"f:labels":{"f:`+applyset.PartOfLabel+`":{}}}}`),
				"kubectl's field manager owns the label and nothing else")
		}
		adopted := &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(d), adopted)).To(Succeed())
		Expect(adopted.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, id))
		Expect(adopted.UID).To(Equal(d.UID))
		Expect(adopted.Generation).To(Equal(d.Generation), "the label write moved the Deployment's generation: %s", cmp.Diff(d, adopted))
		Expect(adopted.Annotations).To(Equal(d.Annotations), "kubectl's last-applied annotation changed")
		Expect(adopted.ManagedFields).NotTo(ContainElement(HaveField("Manager", "kubectl-applyset-adopt")), "the label was not handed to kubectl")
		Expect(kubectlEntry(adopted.ManagedFields)).To(MatchJSON(`{"f:metadata":{"f:labels":{"f:` + applyset.PartOfLabel + `":{}}}}`))
		Expect(testenv.ConfigMapUIDs(ctx, env.Client, ns, "a", "b", "manual")).To(Equal(before))
		manual := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "manual"}, manual)).To(Succeed())
		Expect(manual.Labels).NotTo(HaveKey(applyset.PartOfLabel))

		parent := &corev1.Secret{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, parent)).To(Succeed())
		Expect(parent.Labels).To(HaveKeyWithValue(applyset.IDLabel, id))
		// The kubectl of the plugin's client libraries, whatever the cluster's version.
		Expect(parent.Annotations).To(HaveKeyWithValue(applyset.ToolingAnnotation, "kubectl/"+clientGoKubernetesVersion()))
		Expect(parent.Annotations).To(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap,Deployment.apps"))
		Expect(parent.Annotations).To(HaveKeyWithValue(applyset.AdditionalNamespacesAnnotation, ""))
		Expect(parent.ManagedFields).To(ConsistOf(HaveField("Manager", "kubectl-applyset")))
		again := adopts(ctx, "secret/web", "-n", ns, "-l", "app=web", "--kinds", "ConfigMap,Deployment.apps", "--dry-run=server")
		Expect(strings.Count(again, "already a member")).To(Equal(3), again)
		Expect(again).To(ContainSubstring("Parent: update it"))
		verified, code := plugin(ctx, "", "verify", "secret/web", "-n", ns)
		Expect(code).To(BeZero(), verified)
		Expect(verified).To(ContainSubstring("no findings, 3 members"))

		By("applying with kubectl --applyset without b")
		// kubectl's server-side apply takes the client-side manager's fields
		// over itself (its upgrade of client-side apply), so no conflict arises.
		kubectl(ctx, cmA+deploy, "apply", "--server-side", "--prune", "--applyset=web", "-n", ns, "-f", "-")
		Expect(apierrorsNotFound(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b"}})).To(BeTrue(), "b was not pruned")
		after := testenv.ConfigMapUIDs(ctx, env.Client, ns, "a", "manual")
		Expect(after).To(Equal(map[string]types.UID{"a": before["a"], "manual": before["manual"]}), "an object was recreated or deleted")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(d), adopted)).To(Succeed())
		Expect(adopted.UID).To(Equal(d.UID))
	})

	It("refuses an object in another set, an owned object and a foreign parent; --dry-run=server changes nothing", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		kubectl(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: owner}}", "apply", "-n", ns, "-f", "-")
		owner := testenv.ConfigMapUIDs(ctx, env.Client, ns, "owner")["owner"]
		kubectl(ctx, `{apiVersion: v1, kind: ConfigMap, metadata: {name: taken, labels: {app: x, `+applyset.PartOfLabel+`: `+secretID(ns, "other")+`}}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: owned, labels: {app: x}, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: `+string(owner)+`}]}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: free, labels: {app: x}}}
`, "apply", "-n", ns, "-f", "-")

		out := refused(ctx, "secret/web", "-n", ns, "-l", "app=x", "--kinds", "configmaps", "--yes", "--force")
		Expect(out).To(ContainSubstring("ConfigMap " + ns + "/taken: it is in another set"))
		Expect(out).To(ContainSubstring("ConfigMap " + ns + "/owned: it is owned by ConfigMap owner"))
		free := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "free"}, free)).To(Succeed())
		Expect(free.Labels).NotTo(HaveKey(applyset.PartOfLabel), "a refused adoption labelled an object")
		Expect(apierrorsNotFound(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})).To(BeTrue())

		By("refusing parents kubectl would refuse")
		kubectl(ctx, "", "label", "configmap/taken", "configmap/owned", "-n", ns, "app-")
		kubectl(ctx, `{apiVersion: v1, kind: Secret, metadata: {name: helm, labels: {`+applyset.IDLabel+`: `+secretID(ns, "helm")+`},
  annotations: {`+applyset.ToolingAnnotation+`: helm/v3}}}
---
{apiVersion: v1, kind: Secret, metadata: {name: copied, labels: {`+applyset.IDLabel+`: `+secretID(ns, "helm")+`},
  annotations: {`+applyset.ToolingAnnotation+`: kubectl/v1.37.1}}}
`, "apply", "--server-side", "-n", ns, "-f", "-")
		Expect(refused(ctx, "secret/helm", "-n", ns, "-l", "app=x", "--kinds", "ConfigMap", "--yes")).To(ContainSubstring(`it belongs to the tooling "helm/v3"`))
		Expect(refused(ctx, "secret/copied", "-n", ns, "-l", "app=x", "--kinds", "ConfigMap", "--yes")).To(ContainSubstring("not its own ID"))

		kubectl(ctx, "", "create", "secret", "generic", "plain", "-n", ns, "--from-literal=k=v")
		Expect(refused(ctx, "secret/plain", "-n", ns, "-l", "app=x", "--kinds", "ConfigMap", "--yes")).To(ContainSubstring("it exists and is no ApplySet parent"))
		for parent, why := range map[string]string{
			"serviceaccount/web":                             "kubectl accepts a Secret, a ConfigMap or a custom resource of a parent type",
			"applysets.apply.applyset.dev/web":               "the operator applies its own sets",
			"kustomizations.kustomize.toolkit.fluxcd.io/web": "its CRD has no applyset.kubernetes.io/is-parent-type label",
		} {
			out, code := plugin(ctx, "", "adopt", parent, "-n", ns, "-l", "app=x", "--kinds", "ConfigMap", "--yes")
			Expect(code).NotTo(BeZero(), out)
			Expect(out).To(ContainSubstring(why))
		}

		By("previewing with a server-side dry run, and refusing to adopt without --yes")
		out = adopts(ctx, "secret/web", "-n", ns, "-l", "app=x", "--kinds", "core/v1/ConfigMap", "--dry-run=server")
		Expect(out).To(ContainSubstring("1 objects adopted into secret/web in namespace " + ns + " (server dry run)"))
		out, code := plugin(ctx, "y\n", "adopt", "secret/web", "-n", ns, "-l", "app=x", "--kinds", "ConfigMap")
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("give --yes to go ahead"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(free), free)).To(Succeed())
		Expect(free.Labels).NotTo(HaveKey(applyset.PartOfLabel), "a dry run or a refused adoption labelled an object")
		Expect(apierrorsNotFound(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})).To(BeTrue(), "a dry run created the parent")
	})

	It("adopts a Flux Kustomization's inventory once it is suspended, or with --force", func(ctx context.Context) {
		ns, flux := pluginNamespace(ctx), pluginNamespace(ctx)
		kubectl(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: f1}, data: {k: v}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: f2}, data: {k: v}}\n"+
			"---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: f3}, data: {k: v}}\n",
			"apply", "--server-side", "--field-manager=kustomize-controller", "-n", ns, "-f", "-")
		before := testenv.ConfigMapUIDs(ctx, env.Client, ns, "f1", "f2", "f3")
		kustomization := func(name string, entries ...string) string {
			var list []string
			for _, e := range entries {
				list = append(list, `{id: `+ns+`_`+e+`__ConfigMap, v: v1}`)
			}
			return `{apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, metadata: {name: ` + name + `, namespace: ` + flux + `},
  spec: {prune: true, suspend: false}, status: {inventory: {entries: [` + strings.Join(list, ", ") + `]}}}`
		}
		create(ctx, kustomization("apps", "f1", "f2", "gone"))

		out := refused(ctx, "secret/apps", "-n", ns, "--from", "kustomization/apps", "--from-namespace", flux, "--yes")
		Expect(out).To(ContainSubstring("is not suspended: kustomize-controller would apply these objects again"))
		Expect(out).To(ContainSubstring("spec.prune: true: deleting it while it is not suspended deletes every object of its inventory"))

		kubectl(ctx, `{"spec":{"suspend":true}}`, "patch", "kustomizations.kustomize.toolkit.fluxcd.io/apps", "-n", flux, "--type=merge", "--patch-file=/dev/stdin")
		out = adopts(ctx, "secret/apps", "-n", ns, "--from", "kustomization/apps", "--from-namespace", flux, "--yes")
		Expect(out).To(ContainSubstring("ConfigMap " + ns + "/gone: recorded, but not found; left out"))
		Expect(out).To(ContainSubstring("kustomize-controller (Apply)"))
		Expect(out).To(ContainSubstring("2 objects adopted"))
		Expect(testenv.PartOf(ctx, env.Client, ns, "f1", "f2", "f3")).To(Equal([]string{secretID(ns, "apps"), secretID(ns, "apps"), ""}))

		create(ctx, kustomization("more", "f3"))
		refused(ctx, "secret/more", "-n", ns, "--from", "kustomizations.kustomize.toolkit.fluxcd.io/more", "--from-namespace", flux, "--yes")
		adopts(ctx, "secret/more", "-n", ns, "--from", "kustomizations.kustomize.toolkit.fluxcd.io/more", "--from-namespace", flux, "--yes", "--force")
		Expect(testenv.PartOf(ctx, env.Client, ns, "f3")).To(Equal([]string{secretID(ns, "more")}))
		Expect(testenv.ConfigMapUIDs(ctx, env.Client, ns, "f1", "f2", "f3")).To(Equal(before))
	})

	It("adopts an Argo CD Application's resources: never with the resources finalizer, with automated sync only with --force", func(ctx context.Context) {
		ns, argo := pluginNamespace(ctx), pluginNamespace(ctx)
		kubectl(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: g1}, data: {k: v}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: g2}, data: {k: v}}\n",
			"apply", "--server-side", "--field-manager=argocd-controller", "-n", ns, "-f", "-")
		before := testenv.ConfigMapUIDs(ctx, env.Client, ns, "g1", "g2")
		// g2 has no namespace in the status: it is in the destination namespace.
		create(ctx, `{apiVersion: argoproj.io/v1alpha1, kind: Application, metadata: {name: shop, namespace: `+argo+`,
  finalizers: [resources-finalizer.argocd.argoproj.io]},
  spec: {destination: {namespace: `+ns+`}, syncPolicy: {automated: {prune: true}}},
  status: {resources: [{version: v1, kind: ConfigMap, namespace: `+ns+`, name: g1}, {version: v1, kind: ConfigMap, name: g2}]}}`)

		out := refused(ctx, "configmap/shop", "-n", ns, "--from", "application/shop", "--from-namespace", argo, "--yes", "--force")
		Expect(out).To(ContainSubstring("carries the finalizer resources-finalizer.argocd.argoproj.io: deleting it would delete these objects"))

		kubectl(ctx, "", "patch", "applications.argoproj.io/shop", "-n", argo, "--type=json", `-p=[{"op":"remove","path":"/metadata/finalizers"}]`)
		out = refused(ctx, "configmap/shop", "-n", ns, "--from", "application/shop", "--from-namespace", argo, "--yes")
		Expect(out).To(ContainSubstring("syncs automatically (spec.syncPolicy.automated)"))
		Expect(testenv.PartOf(ctx, env.Client, ns, "g1", "g2")).To(Equal([]string{"", ""}))

		out = adopts(ctx, "configmap/shop", "-n", ns, "--from", "application/shop", "--from-namespace", argo, "--yes", "--force")
		Expect(out).To(ContainSubstring("deleting it with cascade deletes them"))
		Expect(testenv.PartOf(ctx, env.Client, ns, "g1", "g2")).To(Equal([]string{configMapID(ns, "shop"), configMapID(ns, "shop")}))
		Expect(testenv.ConfigMapUIDs(ctx, env.Client, ns, "g1", "g2")).To(Equal(before))
		parent := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, parent)).To(Succeed())
		Expect(parent.Labels).To(HaveKeyWithValue(applyset.IDLabel, configMapID(ns, "shop")))
		verified, code := plugin(ctx, "", "verify", "configmap/shop", "-n", ns)
		Expect(code).To(BeZero(), verified)
		Expect(verified).To(ContainSubstring("no findings, 2 members"))
	})

	It("adopts kpt's ResourceGroup, keeping what kubectl's field manager applied, and kubectl's next apply drops a field and prunes", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		id := secretID(ns, "kpt")
		// kpt live apply --server-side: kubectl's field manager, cli-utils'
		// owning-inventory annotation.
		cm := func(name, data string) string {
			return "{apiVersion: v1, kind: ConfigMap, metadata: {name: " + name + ", annotations: {config.k8s.io/owning-inventory: kpt-web}}, data: {" + data + "}}\n---\n"
		}
		kubectl(ctx, cm("k1", "k: v, drop: x")+cm("k2", "k: v"), "apply", "--server-side", "--field-manager=kubectl", "-n", ns, "-f", "-")
		before := testenv.ConfigMapUIDs(ctx, env.Client, ns, "k1", "k2")
		// As kpt writes its inventory: spec.resources of group, kind, name, namespace.
		create(ctx, `{apiVersion: kpt.dev/v1alpha1, kind: ResourceGroup, metadata: {name: web, namespace: `+ns+`,
  labels: {cli-utils.sigs.k8s.io/inventory-id: kpt-web, configsync.gke.io/declared-version: v1}},
  spec: {resources: [{group: "", kind: ConfigMap, name: k1, namespace: `+ns+`}, {group: "", kind: ConfigMap, name: k2, namespace: `+ns+`}]}}`)

		out := refused(ctx, "secret/kpt", "-n", ns, "--from", "resourcegroup/web", "--yes")
		Expect(out).To(ContainSubstring("carries Config Sync's configsync.gke.io/declared-version: its reconciler would apply these objects again"))
		kubectl(ctx, "", "label", "resourcegroups.kpt.dev/web", "-n", ns, "configsync.gke.io/declared-version-")
		out = adopts(ctx, "secret/kpt", "-n", ns, "--from", "resourcegroups.kpt.dev/web", "--yes")
		Expect(out).To(ContainSubstring("joined to the fields field manager kubectl already applies"))
		Expect(out).To(ContainSubstring("kpt live destroy (a cli-utils destroy) of it deletes them"))
		Expect(out).To(ContainSubstring("kubectl delete resourcegroup web -n " + ns))
		Expect(testenv.PartOf(ctx, env.Client, ns, "k1", "k2")).To(Equal([]string{id, id}))
		k1 := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "k1"}, k1)).To(Succeed())
		Expect(k1.ManagedFields).NotTo(ContainElement(HaveField("Manager", "kubectl-applyset-adopt")))
		Expect(kubectlEntry(k1.ManagedFields)).To(MatchJSON(`{"f:data":{"f:k":{},"f:drop":{}},
  "f:metadata":{"f:annotations":{"f:config.k8s.io/owning-inventory":{}},"f:labels":{"f:`+applyset.PartOfLabel+`":{}}}}`),
			"kubectl's field manager keeps what it applied, and owns the label too")

		By("applying with kubectl --applyset without k2 and without k1's key drop")
		kubectl(ctx, cm("k1", "k: v"), "apply", "--server-side", "--prune", "--applyset=kpt", "-n", ns, "-f", "-")
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "k1"}, k1)).To(Succeed())
		Expect(k1.Data).To(Equal(map[string]string{"k": "v"}), "a field kubectl no longer declares stayed")
		Expect(k1.UID).To(Equal(before["k1"]))
		Expect(apierrorsNotFound(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "k2"}})).To(BeTrue(), "k2 was not pruned")
	})

	It("adopts cli-utils' inventory ConfigMap, written with cli-utils' own object IDs", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		id := secretID(ns, "inv")
		// kpt live apply (client-side, the default): kubectl's field manager
		// updates, and the last-applied annotation.
		kubectl(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c1}, data: {k: v}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: c2}, data: {k: v}}\n",
			"apply", "--field-manager=kubectl", "-n", ns, "-f", "-")
		before := testenv.ConfigMapUIDs(ctx, env.Client, ns, "c1", "c2")
		inventory := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "inventory-web", Namespace: ns,
			Labels: map[string]string{"cli-utils.sigs.k8s.io/inventory-id": "web"}}, Data: map[string]string{}}
		for _, ref := range []object.ObjMetadata{
			{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: ns, Name: "c1"},
			{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: ns, Name: "c2"},
			{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: ns, Name: "gone"},
		} {
			inventory.Data[ref.String()] = `{"strategy":"Apply","actuation":"Succeeded","reconcile":"Succeeded"}`
		}
		Expect(env.Client.Create(ctx, inventory)).To(Succeed())

		out := adopts(ctx, "secret/inv", "-n", ns, "--from", "inventory/inventory-web", "--yes")
		Expect(out).To(ContainSubstring("ConfigMap " + ns + "/gone: recorded, but not found; left out"))
		Expect(out).To(ContainSubstring("kubectl (Update)"))
		Expect(out).To(ContainSubstring("2 objects adopted"))
		Expect(testenv.PartOf(ctx, env.Client, ns, "c1", "c2")).To(Equal([]string{id, id}))
		Expect(testenv.PartOf(ctx, env.Client, ns, "inventory-web")).To(Equal([]string{""}), "the inventory itself is no member")

		kubectl(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c1}, data: {k: v}}\n", "apply", "--server-side", "--prune", "--applyset=inv", "-n", ns, "-f", "-")
		Expect(apierrorsNotFound(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c2"}})).To(BeTrue(), "c2 was not pruned")
		Expect(testenv.ConfigMapUIDs(ctx, env.Client, ns, "c1")).To(Equal(map[string]types.UID{"c1": before["c1"]}))

		plain := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: ns}, Data: map[string]string{ns + "_c1__ConfigMap": ""}}
		Expect(env.Client.Create(ctx, plain)).To(Succeed())
		out, code := plugin(ctx, "", "adopt", "secret/other", "-n", ns, "--from", "inventory/plain", "--yes")
		Expect(code).NotTo(BeZero(), out)
		Expect(out).To(ContainSubstring("has no cli-utils.sigs.k8s.io/inventory-id label: it is no cli-utils inventory"))
	})
})

// kubectlEntry is the fields kubectl's server-side apply owns.
func kubectlEntry(entries []metav1.ManagedFieldsEntry) string {
	for _, e := range entries {
		if e.Manager == "kubectl" && e.Operation == metav1.ManagedFieldsOperationApply && e.FieldsV1 != nil {
			return e.FieldsV1.GetRawString()
		}
	}
	return "{}"
}

// clientGoKubernetesVersion is the Kubernetes version of the client-go the
// plugin is built with, as go.mod requires it: v1.37.1 for client-go v0.37.1.
func clientGoKubernetesVersion() string {
	GinkgoHelper()
	gomod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	Expect(err).NotTo(HaveOccurred())
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/client-go v0\.(\d+\.\d+)\s*$`).FindSubmatch(gomod)
	Expect(m).NotTo(BeNil(), "go.mod requires no k8s.io/client-go")
	return "v1." + string(m[1])
}

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
	"encoding/json"
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("kubectl applyset adopt --to applyset", Ordered, func() {
	var pluginDir string

	BeforeAll(func(ctx context.Context) {
		pluginDir = buildPlugin(ctx)
		resourceGroup := testenv.OpenCRD("kpt.dev", "ResourceGroup")
		resourceGroup.Spec.Versions[0].Name = "v1alpha1"
		if err := env.Client.Create(ctx, resourceGroup); !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred())
		}
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
	})

	adopts := func(ctx context.Context, args ...string) string {
		GinkgoHelper()
		stdout, stderr, code := runPlugin(ctx, pluginDir, "", append([]string{"adopt"}, args...)...)
		Expect(code).To(BeZero(), stdout+stderr)
		return stdout + stderr
	}
	kubectl := kubectlSucceeds

	It("creates a set declaring what kubectl apply declared; the set then owns exactly that, and removes what it stops declaring", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		id := applyset.ParentKey{GroupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), Namespace: ns, Name: "web"}.ID()
		const manifests = `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, labels: {app: web}}, data: {keep: '1', drop: '2'}}
---
{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, labels: {app: web, tier: front}}, spec: {selector: {matchLabels: {app: web}},
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
`
		By("applying client-side with kubectl, then scaling and patching with other managers")
		kubectl(ctx, manifests, "apply", "-n", ns, "-f", "-")
		kubectl(ctx, "", "scale", "deployment/web", "-n", ns, "--replicas=3")
		kubectl(ctx, "", "patch", "configmap/settings", "-n", ns, "-p", `{"data":{"extra":"3"}}`)
		cm, d := &corev1.ConfigMap{}, &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "settings"}, cm)).To(Succeed())
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, d)).To(Succeed())

		By("previewing with --dry-run=server, which writes nothing")
		out := adopts(ctx, "applyset/web", "-n", ns, "-l", "app=web", "--kinds", "ConfigMap,Deployment.apps", "--to", "applyset", "--dry-run=server")
		Expect(out).To(ContainSubstring("declares kubectl.kubernetes.io/last-applied-configuration"))
		Expect(out).To(ContainSubstring("kubectl-client-side-apply (Update)"))
		Expect(out).To(ContainSubstring("inline (spec.resources)"))
		Expect(out).To(ContainSubstring("the operator's default service account"))
		Expect(apierrorsNotFound(ctx, &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})).To(BeTrue())
		unchanged := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), unchanged)).To(Succeed())
		Expect(unchanged.ResourceVersion).To(Equal(cm.ResourceVersion), "a dry run wrote the ConfigMap")

		By("adopting")
		out = adopts(ctx, "applyset/web", "-n", ns, "-l", "app=web", "--kinds", "ConfigMap,Deployment.apps", "--to", "applyset", "--yes")
		Expect(out).To(ContainSubstring("2 objects adopted into applyset"))
		set := &applyv1alpha1.ApplySet{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, set)).To(Succeed())
		Expect(declaredObjects(set)).To(ConsistOf(
			MatchJSON(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"`+ns+`","labels":{"app":"web"}},"data":{"keep":"1","drop":"2"}}`),
			MatchJSON(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"`+ns+`","labels":{"app":"web","tier":"front"}},`+
				`"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)),
			"the set declares what kubectl applied, not the live objects")
		Expect(set.Spec.ServiceAccountName).To(BeEmpty())
		becomesReady(ctx, set)
		Expect(set.Status.Members).To(ConsistOf(
			SatisfyAll(HaveField("Kind", "ConfigMap"), HaveField("Name", "settings"), HaveField("UID", BeEquivalentTo(cm.UID))),
			SatisfyAll(HaveField("Kind", "Deployment"), HaveField("Name", "web"), HaveField("UID", BeEquivalentTo(d.UID)))),
			"the operator's inventory proves both members by UID")

		adoptedCM, adoptedD := &corev1.ConfigMap{}, &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), adoptedCM)).To(Succeed())
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(d), adoptedD)).To(Succeed())
		Expect(adoptedCM.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, id))
		Expect(applyset.PartOfAppliers(adoptedCM.ManagedFields)).To(Equal([]string{"applyset-operator"}))
		Expect(adoptedCM.ManagedFields).NotTo(ContainElement(HaveField("Manager", "kubectl-client-side-apply")))
		Expect(adoptedD.Spec.Template).To(Equal(d.Spec.Template), "adopting changed the Deployment's template")
		Expect(*adoptedD.Spec.Replicas).To(BeEquivalentTo(3))
		// A Deployment counts annotation changes as generations: the digest
		// the set's apply adds, and kubectl's annotation its handover removes;
		// the label adopt wrote moved nothing.
		Expect(adoptedD.Generation).To(Equal(d.Generation + 2))

		By("dropping a key and a label from the set's declaration")
		updateApplySet(ctx, set, func(s *applyv1alpha1.ApplySet) {
			for i := range s.Spec.Resources {
				obj, err := s.Spec.Resources[i].Object()
				Expect(err).NotTo(HaveOccurred())
				unstructured.RemoveNestedField(obj.Object, "data", "drop")
				unstructured.RemoveNestedField(obj.Object, "metadata", "labels", "tier")
				r, err := applyv1alpha1.NewResource(obj.Object)
				Expect(err).NotTo(HaveOccurred())
				s.Spec.Resources[i] = r
			}
		})
		becomesReady(ctx, set)
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), adoptedCM)).To(Succeed())
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(d), adoptedD)).To(Succeed())
		Expect(adoptedCM.Data).To(Equal(map[string]string{"keep": "1", "extra": "3"}),
			"the dropped key stayed, or the key another manager wrote went")
		Expect(adoptedD.Labels).NotTo(HaveKey("tier"))
		Expect(*adoptedD.Spec.Replicas).To(BeEquivalentTo(3), "the set took over the replicas kubectl scale wrote")
		Expect(adoptedCM.UID).To(Equal(cm.UID), "the ConfigMap was recreated")
		Expect(adoptedD.UID).To(Equal(d.UID), "the Deployment was recreated")

		By("refusing a set that exists, and a parent that is no ApplySet")
		stdout, stderr, code := runPlugin(ctx, pluginDir, "", "adopt", "applyset/web", "-n", ns, "-l", "app=web", "--kinds", "ConfigMap", "--to", "applyset", "--yes")
		Expect(code).NotTo(BeZero(), stdout+stderr)
		Expect(stdout + stderr).To(ContainSubstring("nothing changed"))
		Expect(stdout + stderr).To(ContainSubstring("it exists: adopt --to applyset creates the set"))
		stdout, stderr, code = runPlugin(ctx, pluginDir, "", "adopt", "secret/web", "-n", ns, "-l", "app=web", "--kinds", "ConfigMap", "--to", "applyset", "--yes")
		Expect(code).NotTo(BeZero(), stdout+stderr)
		Expect(stdout + stderr).To(ContainSubstring("--to applyset adopts into applyset/NAME"))
	})

	It("declares a Secret it adopts in a Secret beside the set, never inline where the set's viewers read it", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		kubectl(ctx, `{apiVersion: v1, kind: ConfigMap, metadata: {name: db-settings, labels: {app: db}}, data: {port: '5432'}}
---
{apiVersion: v1, kind: Secret, metadata: {name: db-password, labels: {app: db}}, stringData: {password: hunter2}}
`, "apply", "-n", ns, "-f", "-")
		secret := &corev1.Secret{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "db-password"}, secret)).To(Succeed())

		out := adopts(ctx, "applyset/db", "-n", ns, "-l", "app=db", "--kinds", "ConfigMap,Secret", "--to", "applyset", "--yes")
		Expect(out).To(ContainSubstring("in the Secret db-adopted (key resources.yaml)"))
		set := &applyv1alpha1.ApplySet{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "db"}, set)).To(Succeed())
		Expect(set.Spec.Resources).To(BeEmpty())
		Expect(set.Spec.Sources).To(ConsistOf(SatisfyAll(HaveField("Kind", applyv1alpha1.SourceKindSecret), HaveField("Name", "db-adopted"))))
		raw, err := json.Marshal(set)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring("hunter2"))
		Expect(apierrorsNotFound(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db-adopted"}})).To(BeTrue())

		becomesReady(ctx, set)
		Expect(set.Status.Members).To(ContainElement(SatisfyAll(HaveField("Kind", "Secret"), HaveField("Name", "db-password"),
			HaveField("UID", BeEquivalentTo(secret.UID)))), "the set does not prove the Secret it adopted")
	})

	It("declares the fields kpt applied server-side, read with the type's schema: no defaults, no replicas another manager set", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		// kpt live apply --server-side: kubectl's field manager, cli-utils'
		// owning-inventory annotation.
		const manifests = `{apiVersion: v1, kind: ConfigMap, metadata: {name: k1, annotations: {config.k8s.io/owning-inventory: kpt-web}}, data: {keep: '1', drop: '2'}}
---
{apiVersion: apps/v1, kind: Deployment, metadata: {name: api, annotations: {config.k8s.io/owning-inventory: kpt-web}},
  spec: {selector: {matchLabels: {app: api}}, template: {metadata: {labels: {app: api}}, spec: {containers: [{name: api, image: nginx}]}}}}
`
		kubectl(ctx, manifests, "apply", "--server-side", "--field-manager=kubectl", "-n", ns, "-f", "-")
		kubectl(ctx, "", "scale", "deployment/api", "-n", ns, "--replicas=3")
		kubectl(ctx, "", "patch", "configmap/k1", "-n", ns, "-p", `{"data":{"extra":"3"}}`)
		cm, d := &corev1.ConfigMap{}, &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "k1"}, cm)).To(Succeed())
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "api"}, d)).To(Succeed())
		Eventually(func() error {
			out, err := env.Kubectl(ctx, `{apiVersion: kpt.dev/v1alpha1, kind: ResourceGroup, metadata: {name: web, namespace: `+ns+`,
  labels: {cli-utils.sigs.k8s.io/inventory-id: kpt-web}},
  spec: {resources: [{group: "", kind: ConfigMap, name: k1, namespace: `+ns+`}, {group: apps, kind: Deployment, name: api, namespace: `+ns+`}]}}`,
				"create", "-f", "-")
			if err != nil {
				return errors.New(out)
			}
			return nil
		}).Should(Succeed())

		out := adopts(ctx, "applyset/kpt", "-n", ns, "--from", "resourcegroup/web", "--to", "applyset", "--service-account", "default", "--yes")
		Expect(out).To(ContainSubstring("declares the fields [kubectl] applied"))
		Expect(out).To(ContainSubstring("and the fields kubectl applied that the set declares handed to it"))
		set := &applyv1alpha1.ApplySet{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "kpt"}, set)).To(Succeed())
		Expect(set.Spec.ServiceAccountName).To(Equal("default"))
		const owning = `"annotations":{"config.k8s.io/owning-inventory":"kpt-web"}`
		Expect(declaredObjects(set)).To(ConsistOf(
			MatchJSON(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"k1","namespace":"`+ns+`",`+owning+`},"data":{"keep":"1","drop":"2"}}`),
			MatchJSON(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"`+ns+`",`+owning+`},`+
				`"spec":{"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}},"spec":{"containers":[{"name":"api","image":"nginx"}]}}}}`)),
			"the set declares what kpt applied: no defaults, no replicas, no key another manager wrote")
		becomesReady(ctx, set)
		adoptedCM := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), adoptedCM)).To(Succeed())
		Expect(adoptedCM.ManagedFields).NotTo(ContainElement(SatisfyAll(HaveField("Manager", "kubectl"),
			HaveField("Operation", metav1.ManagedFieldsOperationApply))), "kpt's apply entry was not handed over")
		Expect(set.Status.Members).To(HaveLen(2))

		By("dropping a key from the set's declaration")
		updateApplySet(ctx, set, func(s *applyv1alpha1.ApplySet) {
			for i := range s.Spec.Resources {
				obj, err := s.Spec.Resources[i].Object()
				Expect(err).NotTo(HaveOccurred())
				unstructured.RemoveNestedField(obj.Object, "data", "drop")
				r, err := applyv1alpha1.NewResource(obj.Object)
				Expect(err).NotTo(HaveOccurred())
				s.Spec.Resources[i] = r
			}
		})
		becomesReady(ctx, set)
		adoptedD := &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), adoptedCM)).To(Succeed())
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(d), adoptedD)).To(Succeed())
		Expect(adoptedCM.Data).To(Equal(map[string]string{"keep": "1", "extra": "3"}))
		Expect(*adoptedD.Spec.Replicas).To(BeEquivalentTo(3), "the set took over the replicas kubectl scale wrote")
		Expect(adoptedD.Spec.Template).To(Equal(d.Spec.Template), "the Deployment's template changed")
		Expect(adoptedCM.UID).To(Equal(cm.UID))
		Expect(adoptedD.UID).To(Equal(d.UID))
	})
})

// declaredObjects are the JSON of a set's inline resources.
func declaredObjects(set *applyv1alpha1.ApplySet) []string {
	GinkgoHelper()
	out := make([]string, 0, len(set.Spec.Resources))
	for _, r := range set.Spec.Resources {
		data, err := json.Marshal(r)
		Expect(err).NotTo(HaveOccurred())
		out = append(out, string(data))
	}
	return out
}

// becomesReady waits for the set to be Ready at its generation, reporting
// every Deployment in its namespace available as a controller would: envtest
// runs none.
func becomesReady(ctx context.Context, set *applyv1alpha1.ApplySet) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		markDeploymentsAvailable(ctx, g, set.Namespace)
		g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
		g.Expect(ready.ObservedGeneration).To(Equal(set.Generation))
	}).WithTimeout(2 * time.Minute).Should(Succeed())
}

func markDeploymentsAvailable(ctx context.Context, g Gomega, ns string) {
	list := &appsv1.DeploymentList{}
	g.Expect(env.Client.List(ctx, list, client.InNamespace(ns))).To(Succeed())
	for i := range list.Items {
		d := &list.Items[i]
		replicas := ptr.Deref(d.Spec.Replicas, 1)
		if d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == replicas {
			continue
		}
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas,
			ReadyReplicas: replicas, AvailableReplicas: replicas, Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"}}}
		g.Expect(client.IgnoreNotFound(env.Client.Status().Update(ctx, d))).To(Succeed())
	}
}

// updateApplySet changes a set on its latest version.
func updateApplySet(ctx context.Context, set *applyv1alpha1.ApplySet, change func(*applyv1alpha1.ApplySet)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
			return err
		}
		change(set)
		return env.Client.Update(ctx, set)
	})).To(Succeed())
}

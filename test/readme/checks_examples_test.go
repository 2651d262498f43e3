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

package readme

import (
	"context"
	"maps"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// The checks of the examples under examples/, one for each example marked
// `run ID` in their READMEs.
func init() {
	maps.Copy(checks, map[string]func(ctx context.Context, out string){
		"example-web-app":     checkExampleWebApp,
		"example-approval":    checkExampleApproval,
		"example-windows":     checkExampleWindows,
		"example-oci-build":   checkExampleOCIBuild,
		"example-oci-source":  checkExampleOCISource,
		"example-flux-source": dryRunCreated("orders", "orders"),
		"example-crd-bundle":  checkExampleCRDBundle,
	})
}

// expectMembers says that each object exists and carries the set's ID.
func expectMembers(ctx context.Context, id string, objects map[string]client.Object) {
	GinkgoHelper()
	for name, obj := range objects {
		Expect(kube.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}, obj)).To(Succeed(), name)
		Expect(obj.GetLabels()).To(HaveKeyWithValue(partOfLabel, id), name)
	}
}

func in(namespace string, obj client.Object) client.Object {
	obj.SetNamespace(namespace)
	return obj
}

// All five objects of the web app are applied; the set waits, Progressing,
// for the Deployment alone, whose Pods no node runs.
func checkExampleWebApp(ctx context.Context, out string) {
	Expect(out).To(MatchRegexp(`(?m)^storefront\s`))
	Eventually(func(g Gomega) {
		set := &applyv1alpha1.ApplySet{}
		g.Expect(kube.Get(ctx, key("storefront", "storefront"), set)).To(Succeed())
		ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonProgressing))
		g.Expect(set.Status.Health).NotTo(BeNil())
		g.Expect(set.Status.Health.Summary).To(Equal("4/5 ready"))
		g.Expect(set.Status.Health.Unhealthy).To(ConsistOf(And(HaveField("Kind", "Deployment"), HaveField("Name", "storefront"))))
	}).Should(Succeed())
	set := getSet(ctx, "storefront", "storefront")
	expectMembers(ctx, set.Status.ApplySetID, map[string]client.Object{
		"storefront-settings": in("storefront", &corev1.ConfigMap{}),
		"storefront":          in("storefront", &appsv1.Deployment{}),
	})
	for _, obj := range []client.Object{&corev1.Service{}, &networkingv1.Ingress{}, &autoscalingv2.HorizontalPodAutoscaler{}} {
		expectMembers(ctx, set.Status.ApplySetID, map[string]client.Object{"storefront": in("storefront", obj)})
	}
}

// Nothing existed before the approval; approve showed the plan of three
// creations, and the set then applied exactly it.
func checkExampleApproval(ctx context.Context, out string) {
	Expect(out).To(ContainSubstring("3 to create"))
	set := getSet(ctx, "ledger", "ledger")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("True"))
	Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonSucceeded))
	Expect(ready.ObservedGeneration).To(Equal(set.Generation))
	Expect(set.Spec.ApprovedPlan).To(HaveValue(HavePrefix("sha256:")))
	Expect(set.Status.Approval).NotTo(BeNil())
	Expect(set.Status.Approval.LastApplied).To(Equal(*set.Spec.ApprovedPlan))
	expectMembers(ctx, set.Status.ApplySetID, map[string]client.Object{
		"ledger-limits":    in("ledger", &corev1.ConfigMap{}),
		"ledger-from-api":  in("ledger", &networkingv1.NetworkPolicy{}),
		"ledger-reconcile": in("ledger", &batchv1.CronJob{}),
	})
}

// Inside a window the set applied its ConfigMap; outside one it is held,
// applied nothing, and says when it may go on. The clock decides which, the
// check holds either way.
func checkExampleWindows(ctx context.Context, out string) {
	set := getSet(ctx, "billing", "invoicing")
	ready := readyCondition(set)
	Expect(out).To(ContainSubstring(ready.Message))
	config := in("billing", &corev1.ConfigMap{})
	err := kube.Get(ctx, key("billing", "invoicing-settings"), config)
	if ready.Reason == applyv1alpha1.ReasonOutsideWindow {
		Expect(ready.Status).To(BeEquivalentTo("False"))
		Expect(ready.Message).To(MatchRegexp(`^(Outside every Allow window|Held by the Deny window).*; the next opening is `))
		Expect(set.Status.Window).NotTo(BeNil())
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a set held by its windows applied (%v)", err)
		return
	}
	Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonSucceeded), ready.Message)
	expectMembers(ctx, set.Status.ApplySetID, map[string]client.Object{"invoicing-settings": config})
}

// The kustomization builds: the generated settings with their hash, and the
// label the Deployment's selector is made of.
func checkExampleOCIBuild(_ context.Context, out string) {
	Expect(out).To(MatchRegexp(`(?m)^  name: catalog-settings-[a-z0-9]+$`))
	Expect(out).To(MatchRegexp(`(?m)^kind: Deployment$`))
	Expect(out).To(MatchRegexp(`(?m)^    matchLabels:\n      app.kubernetes.io/name: catalog$`))
}

// The API server and the operator's admission accepted the set as a dry
// run, and stored nothing.
func dryRunCreated(namespace, name string) func(context.Context, string) {
	return func(ctx context.Context, out string) {
		Expect(out).To(ContainSubstring("applyset.apply.applyset.dev/" + name + " created (server dry run)"))
		err := kube.Get(ctx, key(namespace, name), &applyv1alpha1.ApplySet{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a dry run stored the set (%v)", err)
	}
}

// The ClusterApplySet is Ready with its CRD served and its two roles, and
// kubectl lists the new kind.
func checkExampleCRDBundle(ctx context.Context, out string) {
	Expect(out).To(ContainSubstring("No resources found"))
	set := &applyv1alpha1.ClusterApplySet{}
	Expect(kube.Get(ctx, key("", "backup-crds"), set)).To(Succeed())
	ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
	Expect(ready).NotTo(BeNil())
	Expect(ready.Status).To(BeEquivalentTo("True"))
	expectMembers(ctx, set.Status.ApplySetID, map[string]client.Object{
		"backups.backup.example.com": &apiextensionsv1.CustomResourceDefinition{},
		"backups-view":               &rbacv1.ClusterRole{},
		"backups-edit":               &rbacv1.ClusterRole{},
	})
}

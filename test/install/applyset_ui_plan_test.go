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

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
)

var _ = Describe("kubectl applyset ui: plans and live updates in a browser", Ordered, func() {
	BeforeAll(func() {
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
	})

	// gated creates a set under Manual approval declaring one ConfigMap
	// with data k: value, and returns the digest of the plan it awaits.
	gated := func(ctx context.Context, ns, value string) (*applyv1alpha1.ApplySet, string) {
		GinkgoHelper()
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gated"}}
		set.Spec.Resources, set.Spec.Approval = []applyv1alpha1.Resource{configMapResource("d", value)}, applyv1alpha1.ApprovalManual
		Expect(env.Client.Create(ctx, set)).To(Succeed())
		return set, awaitedPlan(ctx, set, "")
	}

	It("shows the plan a set awaits as a diff, refuses to approve it once it changed, and approves the plan shown", func(ctx context.Context) {
		tab := browser(ctx)
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		set, digest := gated(ctx, ns, "one")
		url := serveUI(ctx, "-n", ns)

		By("following the set page's link to its plan")
		Expect(chromedp.Do(tab, chromedp.Navigate(url+"sets/"+ns+"/applyset.apply.applyset.dev/gated"),
			chromedp.WaitVisible(chromedp.CSS("#plan-link")))).To(Succeed())
		Expect(run(tab, chromedp.Text(chromedp.CSS("#plan-link")))).To(Equal("A plan awaits approval: review it"))
		Expect(chromedp.Do(tab, chromedp.Click(chromedp.CSS("#plan-link")), chromedp.WaitVisible(chromedp.CSS("#diff")))).To(Succeed())
		Expect(run(tab, chromedp.Text(chromedp.CSS("#awaited")))).To(Equal(digest))
		diff := run(tab, chromedp.Text(chromedp.CSS("#diff")))
		Expect(diff).To(ContainSubstring("+  k: one"))
		Expect(run(tab, chromedp.Evaluate[string](`document.querySelector("#diff .diff-add").className`))).To(Equal("diff-add"))
		Expect(run(tab, chromedp.Text(chromedp.CSS("#notes")))).To(ContainSubstring("The preview above is plan " + digest))
		screenshot(tab, "plan")

		By("refusing the plan shown once the set declares another")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		set.Spec.Resources = []applyv1alpha1.Resource{configMapResource("d", "two")}
		Expect(env.Client.Update(ctx, set)).To(Succeed())
		newer := awaitedPlan(ctx, set, digest)
		Expect(chromedp.Do(tab, chromedp.Click(chromedp.CSS("#approve button")))).To(Succeed())
		Eventually(func() string { return run(tab, chromedp.Text(chromedp.CSS("#approve-result"))) }).
			Should(ContainSubstring("awaits approval of " + newer + ", not " + digest))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		Expect(set.Spec.ApprovedPlan).To(BeNil(), "a plan the page did not show was approved")

		By("approving the plan shown after a reload")
		Expect(chromedp.Do(tab, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#approve button")))).To(Succeed())
		Expect(run(tab, chromedp.Text(chromedp.CSS("#diff")))).To(ContainSubstring("+  k: two"))
		Expect(chromedp.Do(tab, chromedp.Click(chromedp.CSS("#approve button")))).To(Succeed())
		Eventually(func() string { return run(tab, chromedp.Text(chromedp.CSS("#approve-result"))) }).
			Should(Equal("Approved plan " + newer + " of applyset.apply.applyset.dev/gated in namespace " + ns + ": the operator applies it next."))
		screenshot(tab, "plan-approved")
		Eventually(func() string { return readyReason(ctx, set) }).Should(Equal(applyv1alpha1.ReasonSucceeded))
		cm := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "d"}, cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("k", "two"))
	})

	It("refuses Approve for a user who may edit the set but not approve it", func(ctx context.Context) {
		tab := browser(ctx)
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		set, digest := gated(ctx, ns, "one")
		Expect(env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "editor"},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"apply.applyset.dev"}, Resources: []string{"applysets"}, Verbs: []string{"get", "list", "watch", "patch", "update"}},
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch", "create", "patch"}},
				{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"list", "watch"}},
			}})).To(Succeed())
		Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "editor"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "editor"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "editor"}}})).To(Succeed())
		url := serveUI(ctx, "-n", ns, "--as", "editor")

		Expect(chromedp.Do(tab, chromedp.Navigate(url+"sets/"+ns+"/applyset.apply.applyset.dev/gated/plan"),
			chromedp.WaitVisible(chromedp.CSS("#approve button")))).To(Succeed())
		Expect(run(tab, chromedp.Text(chromedp.CSS("#approve button")))).To(Equal("Approve plan " + digest))
		Expect(chromedp.Do(tab, chromedp.Click(chromedp.CSS("#approve button")))).To(Succeed())
		Eventually(func() string { return run(tab, chromedp.Text(chromedp.CSS("#approve-result"))) }).
			Should(ContainSubstring("editor may not approve applysets"))
		Expect(run(tab, chromedp.Evaluate[string](`document.getElementById("approve-result").className`))).To(Equal("refused"))
		screenshot(tab, "plan-refused")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		Expect(set.Spec.ApprovedPlan).To(BeNil())
		Expect(readyReason(ctx, set)).To(Equal(applyv1alpha1.ReasonAwaitingApproval))
	})

	It("shows a change of a member without a reload", func(ctx context.Context) {
		tab := browser(ctx)
		ns := pluginNamespace(ctx)
		kubectlSucceeds(ctx, deploymentManifest("web")+"---\n"+configMapManifest("config"),
			"apply", "--server-side", "--prune", "--applyset=secret/web", "-n", ns, "-f", "-")
		url := serveUI(ctx, "-n", ns)
		Expect(chromedp.Do(tab, chromedp.Navigate(url+"sets/"+ns+"/secret/web"), chromedp.WaitVisible(chromedp.CSS("#members")),
			chromedp.WaitReady(chromedp.CSS(`#live-status[data-stream="open"]`)))).To(Succeed())
		health := func() string {
			return run(tab, chromedp.Evaluate[string](`[...document.querySelectorAll("#members tbody tr")].find(tr => tr.querySelector("th").textContent === "web").querySelector("span").textContent`))
		}
		Expect(health()).To(Equal("InProgress"))
		// A page that reloaded would lose this.
		Expect(run(tab, chromedp.Evaluate[bool](`window.applysetSameDocument = true`))).To(BeTrue())

		kubectlSucceeds(ctx, "", "patch", "deployment", "web", "-n", ns, "--subresource=status", "--type=merge", "-p",
			`{"status": {"observedGeneration": 1, "conditions": [{"type": "Progressing", "status": "False",
			 "reason": "ProgressDeadlineExceeded", "message": "ReplicaSet \"web-1\" has timed out progressing."}]}}`)
		Eventually(health).Should(Equal("Failed"))
		Expect(run(tab, chromedp.Evaluate[bool](`window.applysetSameDocument === true`))).To(BeTrue(), "the page was reloaded")
		Expect(run(tab, chromedp.Text(chromedp.CSS("#live-status")))).To(HavePrefix("Updated at "))

		By("a new member appearing")
		kubectlSucceeds(ctx, deploymentManifest("web")+"---\n"+configMapManifest("config")+"---\n"+configMapManifest("extra"),
			"apply", "--server-side", "--prune", "--applyset=secret/web", "-n", ns, "-f", "-")
		Eventually(func() []string {
			return run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#members tbody th")].map(th => th.textContent)`))
		}).Should(ConsistOf("config", "extra", "web"))
		Expect(run(tab, chromedp.Evaluate[bool](`window.applysetSameDocument === true`))).To(BeTrue(), "the page was reloaded")
		screenshot(tab, "live-update")
	})
})

// configMapResource is a ConfigMap named name with data k: value, as a set declares it.
func configMapResource(name, value string) applyv1alpha1.Resource {
	GinkgoHelper()
	r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name},
		"data": map[string]any{"k": value}})
	Expect(err).NotTo(HaveOccurred())
	return r
}

// awaitedPlan waits until set awaits approval of a plan other than old and returns its digest.
func awaitedPlan(ctx context.Context, set *applyv1alpha1.ApplySet, old string) string {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(readyReason(ctx, set)).To(Equal(applyv1alpha1.ReasonAwaitingApproval))
		g.Expect(set.Status.Plan).NotTo(BeNil())
		g.Expect(set.Status.Plan.Digest).NotTo(BeElementOf("", old))
		ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		g.Expect(ready.ObservedGeneration).To(Equal(set.Generation))
	}).Should(Succeed())
	return set.Status.Plan.Digest
}

// readyReason reads set and returns the reason of its Ready condition.
func readyReason(ctx context.Context, set *applyv1alpha1.ApplySet) string {
	GinkgoHelper()
	Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
	if ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady); ready != nil {
		return ready.Reason
	}
	return ""
}

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

package validation

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// asUser returns a client that makes its requests as user, with no groups
// but those of every authenticated user.
func asUser(user string) client.Client {
	GinkgoHelper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// grant lets user do verbs on resources of group in namespace ("" for cluster-wide).
func grant(ctx context.Context, user, namespace, group string, resources, names, verbs []string) {
	GinkgoHelper()
	rule := rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, ResourceNames: names, Verbs: verbs}
	subject := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	if namespace == "" {
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{GenerateName: user + "-"}, Rules: []rbacv1.PolicyRule{rule}}
		Expect(k8sClient.Create(ctx, role)).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{GenerateName: user + "-"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name}, Subjects: subject})).To(Succeed())
		return
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, GenerateName: user + "-"}, Rules: []rbacv1.PolicyRule{rule}}
	Expect(k8sClient.Create(ctx, role)).To(Succeed())
	Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, GenerateName: user + "-"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}, Subjects: subject})).To(Succeed())
}

// forbiddenByPolicy checks that policy refused a request, saying message.
func forbiddenByPolicy(err error, policy, message string) {
	GinkgoHelper()
	Expect(apierrors.IsForbidden(err)).To(BeTrue(), "want Forbidden, got %v", err)
	Expect(err.Error()).To(And(ContainSubstring("ValidatingAdmissionPolicy '%s'", policy), ContainSubstring(message)))
}

var _ = Describe("Authority: a set can do no more than its author could", func() {
	const namespacePolicy, serviceAccountPolicy = "applyset-namespace-authority", "clusterapplyset-service-account-authority"
	var sets = []string{"applysets"}

	It("refuses an ApplySet that reaches into a namespace where its author may not create ApplySets", func(ctx context.Context) {
		const user = "tenant-a"
		grant(ctx, user, home, "apply.applyset.dev", sets, nil, []string{"create", "update", "get"})
		tenant := asUser(user)
		manifest := applySet("{additionalNamespaces: [kube-system]}")

		Eventually(func(ctx context.Context) error { return tenant.Create(ctx, parse(manifest), client.DryRunAll) }).
			WithContext(ctx).Should(HaveOccurred(), "the authority policy never took effect")
		forbiddenByPolicy(tenant.Create(ctx, parse(manifest), client.DryRunAll), namespacePolicy,
			"spec.additionalNamespaces: tenant-a may not create ApplySets in kube-system")
		Expect(tenant.Create(ctx, parse(applySet("{additionalNamespaces: ["+other+"]}")), client.DryRunAll)).NotTo(Succeed())

		By("granting the author ApplySets in the other namespace")
		grant(ctx, user, other, "apply.applyset.dev", sets, nil, []string{"create"})
		Eventually(func(ctx context.Context) error {
			return tenant.Create(ctx, parse(applySet("{additionalNamespaces: ["+other+"]}")), client.DryRunAll)
		}).WithContext(ctx).Should(Succeed())
	})

	It("judges the most namespaces a set may list, each on its own", func(ctx context.Context) {
		const user = "tenant-many"
		var names []string
		for i := range 16 {
			ns := fmt.Sprintf("many-%d", i)
			Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
			names = append(names, ns)
		}
		grant(ctx, user, home, "apply.applyset.dev", sets, nil, []string{"create"})
		for _, ns := range names[:15] {
			grant(ctx, user, ns, "apply.applyset.dev", sets, nil, []string{"create"})
		}
		tenant := asUser(user)
		manifest := applySet("{additionalNamespaces: [" + strings.Join(names, ", ") + "]}")
		Eventually(func(ctx context.Context) error { return tenant.Create(ctx, parse(manifest), client.DryRunAll) }).
			WithContext(ctx).Should(HaveOccurred())
		forbiddenByPolicy(tenant.Create(ctx, parse(manifest), client.DryRunAll), namespacePolicy,
			"tenant-many may not create ApplySets in many-15")

		grant(ctx, user, names[15], "apply.applyset.dev", sets, nil, []string{"create"})
		Eventually(func(ctx context.Context) error { return tenant.Create(ctx, parse(manifest), client.DryRunAll) }).
			WithContext(ctx).Should(Succeed(), "16 namespaces, the most allowed, overran the policy's budget")
	})

	It("lets another person edit a set without the rights of its author, so long as no namespace is added", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, parse(applySet("{additionalNamespaces: ["+other+"]}")))).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, parse(applySet("{}")))).To(Succeed()) })
		const user = "editor-a"
		grant(ctx, user, home, "apply.applyset.dev", sets, nil, []string{"get", "update", "patch"})
		editor := asUser(user)
		Eventually(func(ctx context.Context) error {
			set := parse(applySet("{}"))
			if err := editor.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
				return err
			}
			set.Object["spec"].(map[string]any)["suspend"] = true
			return editor.Update(ctx, set, client.DryRunAll)
		}).WithContext(ctx).Should(Succeed())

		By("adding a namespace in an update, which the policy judges")
		set := parse(applySet("{}"))
		Expect(editor.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		set.Object["spec"].(map[string]any)["additionalNamespaces"] = []any{other, "kube-system"}
		forbiddenByPolicy(editor.Update(ctx, set, client.DryRunAll), namespacePolicy,
			"spec.additionalNamespaces: editor-a may not create ApplySets in kube-system")

		By("changing only the labels, which the policy leaves alone")
		set = parse(applySet("{}"))
		Expect(editor.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		set.SetLabels(map[string]string{"team": "a"})
		Expect(editor.Update(ctx, set, client.DryRunAll)).To(Succeed())
	})

	It("refuses a ClusterApplySet acting as a ServiceAccount its author may not impersonate", func(ctx context.Context) {
		const user = "platform-a"
		grant(ctx, user, "", "apply.applyset.dev", []string{"clusterapplysets"}, nil, []string{"create"})
		platform := asUser(user)
		manifest := clusterApplySet("{serviceAccountName: deployer, serviceAccountNamespace: " + other + "}")

		Eventually(func(ctx context.Context) error { return platform.Create(ctx, parse(manifest), client.DryRunAll) }).
			WithContext(ctx).Should(HaveOccurred())
		forbiddenByPolicy(platform.Create(ctx, parse(manifest), client.DryRunAll), serviceAccountPolicy,
			"platform-a may not impersonate ServiceAccount "+other+"/deployer")

		By("granting the author the impersonation of that account only")
		grant(ctx, user, other, "", []string{"serviceaccounts"}, []string{"deployer"}, []string{"impersonate"})
		Eventually(func(ctx context.Context) error { return platform.Create(ctx, parse(manifest), client.DryRunAll) }).
			WithContext(ctx).Should(Succeed())
		forbiddenByPolicy(platform.Create(ctx, parse(clusterApplySet("{serviceAccountName: admin, serviceAccountNamespace: "+other+"}")),
			client.DryRunAll), serviceAccountPolicy, "may not impersonate ServiceAccount "+other+"/admin")
	})
})

var _ = Describe("Authority: an ApplySet acts as a ServiceAccount only for those who may impersonate it", func() {
	const policy = "applyset-service-account-authority"
	var sets = []string{"applysets"}
	digest := "sha256:" + strings.Repeat("a", 64)

	It("refuses an ApplySet naming a ServiceAccount its author may not impersonate, but not the default one", func(ctx context.Context) {
		const user = "tenant-sa"
		grant(ctx, user, home, "apply.applyset.dev", sets, nil, []string{"create"})
		tenant := asUser(user)
		manifest := applySet("{serviceAccountName: deployer}")

		Eventually(func(ctx context.Context) error { return tenant.Create(ctx, parse(manifest), client.DryRunAll) }).
			WithContext(ctx).WithTimeout(policyTimeout).Should(HaveOccurred(), "the ServiceAccount policy never took effect")
		forbiddenByPolicy(tenant.Create(ctx, parse(manifest), client.DryRunAll), policy,
			"spec.serviceAccountName: tenant-sa may not impersonate ServiceAccount "+home+"/deployer, "+
				"so they may not write the spec of an ApplySet that acts as it (only the namespace's default account, default, needs no such right)")

		By("naming the default ServiceAccount, or none, which needs no right")
		Expect(tenant.Create(ctx, parse(applySet("{serviceAccountName: default}")), client.DryRunAll)).To(Succeed())
		Expect(tenant.Create(ctx, parse(applySet("{}")), client.DryRunAll)).To(Succeed())

		By("granting the author the impersonation of that account only")
		grant(ctx, user, home, "", []string{"serviceaccounts"}, []string{"deployer"}, []string{"impersonate"})
		Eventually(func(ctx context.Context) error { return tenant.Create(ctx, parse(manifest), client.DryRunAll) }).
			WithContext(ctx).WithTimeout(policyTimeout).Should(Succeed())
		forbiddenByPolicy(tenant.Create(ctx, parse(applySet("{serviceAccountName: admin}")), client.DryRunAll), policy,
			"tenant-sa may not impersonate ServiceAccount "+home+"/admin")
	})

	It("checks every change of the spec but spec.approvedPlan of a set acting as a ServiceAccount", func(ctx context.Context) {
		set := parse(applySet("{serviceAccountName: deployer, approval: Manual}"))
		set.SetName("acting")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, set)).To(Succeed()) })
		grant(ctx, "editor-sa", home, "apply.applyset.dev", sets, nil, []string{"get", "update"})
		grant(ctx, "approver-sa", home, "apply.applyset.dev", sets, nil, []string{"get", "update", "approve"})
		editor, approver := asUser("editor-sa"), asUser("approver-sa")

		Eventually(func(ctx context.Context) error {
			return editLatest(ctx, editor, set, func(s map[string]any) { s["suspend"] = true })
		}).WithContext(ctx).WithTimeout(policyTimeout).Should(HaveOccurred(), "the ServiceAccount policy never took effect")
		forbiddenByPolicy(editLatest(ctx, editor, set, func(s map[string]any) { s["suspend"] = true }), policy,
			"spec.serviceAccountName: editor-sa may not impersonate ServiceAccount "+home+"/deployer")
		forbiddenByPolicy(editLatest(ctx, approver, set, func(s map[string]any) { s["approval"] = "Auto" }), policy,
			"approver-sa may not impersonate ServiceAccount "+home+"/deployer")

		By("approving a plan, which needs the verb approve and no impersonation")
		Expect(editLatest(ctx, approver, set, func(s map[string]any) { s["approvedPlan"] = digest })).To(Succeed())

		By("changing only the labels, which leaves the spec as it was")
		latest := set.DeepCopy()
		Expect(editor.Get(ctx, client.ObjectKeyFromObject(set), latest)).To(Succeed())
		latest.SetLabels(map[string]string{"team": "a"})
		Expect(editor.Update(ctx, latest, client.DryRunAll)).To(Succeed())

		By("granting the editor the impersonation of the set's account")
		grant(ctx, "editor-sa", home, "", []string{"serviceaccounts"}, []string{"deployer"}, []string{"impersonate"})
		Eventually(func(ctx context.Context) error {
			return editLatest(ctx, editor, set, func(s map[string]any) { s["suspend"] = true })
		}).WithContext(ctx).WithTimeout(policyTimeout).Should(Succeed())
	})

	It("reads the default ServiceAccount from its ConfigMap, and refuses to judge without it", func(ctx context.Context) {
		const user = "tenant-params"
		grant(ctx, user, home, "apply.applyset.dev", sets, nil, []string{"create"})
		tenant := asUser(user)
		key := client.ObjectKey{Namespace: "applyset-operator-system", Name: "default-service-account"}
		params := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, key, params)).To(Succeed())
		Expect(params.Data).To(Equal(map[string]string{"serviceAccountName": "default"}))
		restore := func(ctx context.Context) {
			latest := &corev1.ConfigMap{}
			err := k8sClient.Get(ctx, key, latest)
			if apierrors.IsNotFound(err) {
				Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
					Data: params.Data})).To(Succeed())
				return
			}
			Expect(err).NotTo(HaveOccurred())
			latest.Data = params.Data
			Expect(k8sClient.Update(ctx, latest)).To(Succeed())
		}
		DeferCleanup(restore)
		Eventually(func(ctx context.Context) error {
			return tenant.Create(ctx, parse(applySet("{serviceAccountName: default}")), client.DryRunAll)
		}).WithContext(ctx).WithTimeout(policyTimeout).Should(Succeed())

		By("making deployer the default")
		latest := params.DeepCopy()
		latest.Data = map[string]string{"serviceAccountName": "deployer"}
		Expect(k8sClient.Update(ctx, latest)).To(Succeed())
		Eventually(func(ctx context.Context) error {
			return tenant.Create(ctx, parse(applySet("{serviceAccountName: deployer}")), client.DryRunAll)
		}).WithContext(ctx).WithTimeout(policyTimeout).Should(Succeed())
		forbiddenByPolicy(tenant.Create(ctx, parse(applySet("{serviceAccountName: default}")), client.DryRunAll), policy,
			"tenant-params may not impersonate ServiceAccount "+home+"/default")

		By("deleting the ConfigMap, after which no ApplySet is written")
		Expect(k8sClient.Delete(ctx, latest)).To(Succeed())
		Eventually(func(ctx context.Context) error {
			return k8sClient.Create(ctx, parse(applySet("{}")), client.DryRunAll)
		}).WithContext(ctx).WithTimeout(policyTimeout).Should(MatchError(ContainSubstring("no params found")))
		restore(ctx)
		Eventually(func(ctx context.Context) error {
			return k8sClient.Create(ctx, parse(applySet("{}")), client.DryRunAll)
		}).WithContext(ctx).WithTimeout(policyTimeout).Should(Succeed())
	})

	It("checks every change of the spec but spec.approvedPlan of a ClusterApplySet, not only of its ServiceAccount", func(ctx context.Context) {
		const clusterPolicy = "clusterapplyset-service-account-authority"
		set := parse(clusterApplySet("{serviceAccountName: deployer, serviceAccountNamespace: " + other + "}"))
		set.SetName("acting")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, set)).To(Succeed()) })
		clusterSets := []string{"clusterapplysets"}
		grant(ctx, "platform-editor", "", "apply.applyset.dev", clusterSets, nil, []string{"get", "update"})
		grant(ctx, "platform-approver", "", "apply.applyset.dev", clusterSets, nil, []string{"get", "update", "approve"})
		editor, approver := asUser("platform-editor"), asUser("platform-approver")

		Eventually(func(ctx context.Context) error {
			return editLatest(ctx, editor, set, func(s map[string]any) { s["suspend"] = true })
		}).WithContext(ctx).WithTimeout(policyTimeout).Should(HaveOccurred(), "the ServiceAccount policy never took effect")
		forbiddenByPolicy(editLatest(ctx, editor, set, func(s map[string]any) { s["suspend"] = true }), clusterPolicy,
			"spec.serviceAccountName: platform-editor may not impersonate ServiceAccount "+other+"/deployer, "+
				"so they may not write the spec of a ClusterApplySet that acts as it")
		Expect(editLatest(ctx, approver, set, func(s map[string]any) { s["approvedPlan"] = digest })).To(Succeed())

		grant(ctx, "platform-editor", other, "", []string{"serviceaccounts"}, []string{"deployer"}, []string{"impersonate"})
		Eventually(func(ctx context.Context) error {
			return editLatest(ctx, editor, set, func(s map[string]any) { s["suspend"] = true })
		}).WithContext(ctx).WithTimeout(policyTimeout).Should(Succeed())
	})
})

var _ = Describe("Authority: the feature gates of a CRD are its owner's", func() {
	const policy = "customfeaturegates-crd-authority"
	var gates = []string{"customfeaturegates"}

	It("refuses gates over a CRD their author may not update", func(ctx context.Context) {
		const user = "gates-author"
		grant(ctx, user, "", "features.applyset.dev", gates, nil, []string{"create"})
		author := asUser(user)
		manifest := featureGates("widgets.example.com", "{featureGates: [{name: Rules, preRelease: Alpha, fieldPaths: [.spec.rules]}]}")

		Eventually(func(ctx context.Context) error { return author.Create(ctx, parse(manifest), client.DryRunAll) }).
			WithContext(ctx).WithTimeout(policyTimeout).Should(HaveOccurred(), "the feature gates policy never took effect")
		forbiddenByPolicy(author.Create(ctx, parse(manifest), client.DryRunAll), policy,
			"metadata.name: gates-author may not update CustomResourceDefinition widgets.example.com, "+
				"so they may not declare its feature gates")

		By("granting the author the update of that CRD only")
		grant(ctx, user, "", "apiextensions.k8s.io", []string{"customresourcedefinitions"}, []string{"widgets.example.com"}, []string{"update"})
		Eventually(func(ctx context.Context) error { return author.Create(ctx, parse(manifest), client.DryRunAll) }).
			WithContext(ctx).WithTimeout(policyTimeout).Should(Succeed())
		forbiddenByPolicy(author.Create(ctx, parse(featureGates("gadgets.example.com", "{}")), client.DryRunAll), policy,
			"gates-author may not update CustomResourceDefinition gadgets.example.com")
	})

	It("checks every change of the gates, not their labels", func(ctx context.Context) {
		cfg := parse(featureGates("sprockets.example.com", "{featureGates: [{name: Rules, preRelease: Alpha, fieldPaths: [.spec.rules]}]}"))
		Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, cfg)).To(Succeed()) })
		const user = "gates-editor"
		grant(ctx, user, "", "features.applyset.dev", gates, nil, []string{"get", "update"})
		editor := asUser(user)

		enable := func(s map[string]any) { s["featureGates"].([]any)[0].(map[string]any)["enabled"] = true }
		Eventually(func(ctx context.Context) error { return editLatest(ctx, editor, cfg, enable) }).
			WithContext(ctx).WithTimeout(policyTimeout).Should(HaveOccurred(), "the feature gates policy never took effect")
		forbiddenByPolicy(editLatest(ctx, editor, cfg, enable), policy,
			"gates-editor may not update CustomResourceDefinition sprockets.example.com")

		latest := cfg.DeepCopy()
		Expect(editor.Get(ctx, client.ObjectKeyFromObject(cfg), latest)).To(Succeed())
		latest.SetLabels(map[string]string{"team": "a"})
		Expect(editor.Update(ctx, latest, client.DryRunAll)).To(Succeed())
	})

	It("refuses gates over the operator's own CRDs even to a cluster admin, saying why", func(ctx context.Context) {
		out, err := env.Kubectl(ctx, featureGates("applysets.apply.applyset.dev",
			"{featureGates: [{name: Frozen, preRelease: Alpha, fieldPaths: [.status.approval.sequence]}]}"),
			"apply", "--server-side", "--dry-run=server", "-f", "-")
		Expect(err).To(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("metadata.name: the operator's own CRDs (groups apply.applyset.dev and " +
			"features.applyset.dev) may not be gated: gates over them could switch off the operator's safeguards"))
	})
})

// policyTimeout bounds the wait for a policy to take effect, which a context
// alone leaves unbounded.
const policyTimeout = 30 * time.Second

// editLatest reads obj's latest version as c, changes its spec and writes it
// back as c in a dry run.
func editLatest(ctx context.Context, c client.Client, obj *unstructured.Unstructured, change func(spec map[string]any)) error {
	latest := obj.DeepCopy()
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), latest); err != nil {
		return err
	}
	spec, _ := latest.Object["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		latest.Object["spec"] = spec
	}
	change(spec)
	return c.Update(ctx, latest, client.DryRunAll)
}

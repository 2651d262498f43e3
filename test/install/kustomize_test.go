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
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
)

var _ = Describe("The install path", func() {
	It("is accepted by kubectl apply --server-side -k config/default, twice", func(ctx context.Context) {
		for range 2 {
			out, err := env.Kubectl(ctx, "", "apply", "--server-side", "-k", filepath.Join("config", "default"))
			Expect(err).NotTo(HaveOccurred(), out)
		}

		deployment := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{
			Namespace: "applyset-operator-system", Name: "applyset-operator-controller-manager",
		}, deployment)).To(Succeed())
		Expect(deployment.Spec.Template.Spec.ServiceAccountName).To(Equal("applyset-operator-controller-manager"))

		binding := &rbacv1.ClusterRoleBinding{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "applyset-operator-manager-rolebinding"}, binding)).To(Succeed())
		Expect(binding.RoleRef.Name).To(Equal("applyset-operator-manager-role"))
		Expect(binding.Subjects).To(ConsistOf(HaveField("Namespace", "applyset-operator-system")))

		By("shipping the ServiceAccount policy's parameters where its binding reads them, as the manager's default says")
		policyBinding := &admissionv1.ValidatingAdmissionPolicyBinding{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "applyset-operator-applyset-service-account-authority"}, policyBinding)).To(Succeed())
		Expect(policyBinding.Spec.ParamRef).To(HaveValue(SatisfyAll(
			HaveField("Namespace", "applyset-operator-system"), HaveField("Name", "applyset-operator-default-service-account"))))
		params := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: "applyset-operator-system", Name: "applyset-operator-default-service-account"},
			params)).To(Succeed())
		Expect(params.Data).To(Equal(map[string]string{"serviceAccountName": "default"}))

		By("granting the operator no write on objects it does not own: sets act as their ServiceAccounts")
		role := &rbacv1.ClusterRole{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "applyset-operator-manager-role"}, role)).To(Succeed())
		for _, rule := range role.Rules {
			if slices.Contains(rule.Resources, "*") {
				Expect(rule.Verbs).To(ConsistOf("get", "list", "watch"), "the default install may write any object")
			}
			if slices.Contains(rule.Verbs, "impersonate") && !slices.Equal(rule.Resources, []string{"serviceaccounts"}) {
				// Besides ServiceAccounts, only the three probe users, by name.
				Expect(rule.Resources).To(Equal([]string{"users"}), "the operator may impersonate more than ServiceAccounts")
				Expect(rule.ResourceNames).To(HaveLen(1), "the operator may impersonate any user")
				Expect(rule.ResourceNames[0]).To(BeElementOf(applysets.ApprovalProbeUser, applysets.InventoryProbeUser, featuregates.ProbeUser),
					"the operator may impersonate another user")
			}
		}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "applyset-operator-cluster-writer"}, &rbacv1.ClusterRole{})).NotTo(Succeed())

		By("granting writes of the certificate Secret and the webhook configurations by name only (the configurations by server-side apply alone), and no create of any")
		shipped := map[string][]string{
			"mutatingwebhookconfigurations":   {featuregates.DefaultConfigurationName, applysets.DefaultApproversConfiguration},
			"validatingwebhookconfigurations": {applysets.DefaultValidationConfiguration},
		}
		for _, rule := range role.Rules {
			writes := slices.ContainsFunc(rule.Verbs, func(v string) bool { return v != "get" && v != "list" && v != "watch" })
			if slices.Contains(rule.APIGroups, "admissionregistration.k8s.io") {
				Expect(rule.Verbs).NotTo(ContainElement("create"), "the default install may create admission configuration: %v", rule)
				if writes {
					Expect(rule.Resources).NotTo(ContainElement(ContainSubstring("admissionpolic")),
						"the default install may write admission policies, as much as cluster-admin: %v", rule)
				}
			}
			if slices.Contains(rule.Resources, "secrets") {
				Expect(writes).To(BeFalse(), "the operator may write every Secret: %v", rule)
			}
			for resource, names := range shipped {
				if writes && slices.Contains(rule.Resources, resource) {
					Expect(rule.Verbs).To(ConsistOf("patch"), "the operator may create or update whole %s", resource)
					Expect(rule.ResourceNames).To(HaveExactElements(BeElementOf(names)), "the operator may write any of %s", resource)
				}
			}
		}
		certRole := &rbacv1.Role{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: "applyset-operator-system", Name: "applyset-operator-webhook-cert-role"}, certRole)).To(Succeed())
		Expect(certRole.Rules).To(ConsistOf(SatisfyAll(
			HaveField("Resources", Equal([]string{"secrets"})), HaveField("Verbs", Equal([]string{"update"})),
			HaveField("ResourceNames", Equal([]string{"applyset-operator-webhook-server-cert"})))))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: "applyset-operator-system", Name: "applyset-operator-webhook-server-cert"},
			&corev1.Secret{})).To(Succeed(), "the certificate Secret is not shipped under the name the Role grants")
		certBinding := &rbacv1.RoleBinding{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: "applyset-operator-system", Name: "applyset-operator-webhook-cert-rolebinding"}, certBinding)).To(Succeed())
		Expect(certBinding.Subjects).To(ConsistOf(SatisfyAll(HaveField("Name", "applyset-operator-controller-manager"),
			HaveField("Namespace", "applyset-operator-system"))))

		By("letting the feature gates' write probe create objects in the operator's namespace only, and only as dry runs")
		probeBinding := &rbacv1.RoleBinding{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: "applyset-operator-system", Name: "applyset-operator-featuregate-probe"}, probeBinding)).To(Succeed())
		Expect(probeBinding.RoleRef.Kind).To(Equal("Role"))
		Expect(probeBinding.Subjects).To(ConsistOf(SatisfyAll(HaveField("Kind", "User"), HaveField("Name", featuregates.ProbeUser))))
		probeRole := &rbacv1.Role{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: "applyset-operator-system", Name: probeBinding.RoleRef.Name}, probeRole)).To(Succeed())
		Expect(probeRole.Rules).To(ConsistOf(HaveField("Verbs", Equal([]string{"create"}))))
		bindings := &rbacv1.ClusterRoleBindingList{}
		Expect(k8sClient.List(ctx, bindings)).To(Succeed())
		for _, b := range bindings.Items {
			for _, s := range b.Subjects {
				Expect(s.Name).NotTo(Equal(featuregates.ProbeUser), "ClusterRoleBinding %s grants the probe user rights cluster-wide", b.Name)
			}
		}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "applyset-operator-featuregate-probe-dry-run-only"},
			&admissionv1.ValidatingAdmissionPolicyBinding{})).To(Succeed())

		By("shipping the webhook configurations the operator fills in, under the names its role grants")
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: featuregates.DefaultConfigurationName}, &admissionv1.MutatingWebhookConfiguration{})).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: applysets.DefaultValidationConfiguration}, &admissionv1.ValidatingWebhookConfiguration{})).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: applysets.DefaultApproversConfiguration}, &admissionv1.MutatingWebhookConfiguration{})).To(Succeed())
	})

	It("adds the cluster-writer role for the opt-in modes through its component", func(ctx context.Context) {
		out, err := env.Kubectl(ctx, "", "kustomize", filepath.Join("test", "install", "testdata", "cluster-writer"))
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("name: applyset-operator-cluster-writer"))
		Expect(out).To(MatchRegexp(`(?s)kind: ClusterRoleBinding.*name: applyset-operator-cluster-writer.*subjects:\s*- kind: ServiceAccount\s*name: applyset-operator-controller-manager\s*namespace: applyset-operator-system`))
	})

	It("adds the policy backend's rights through its component, and only there", func(ctx context.Context) {
		out, err := env.Kubectl(ctx, "", "kustomize", filepath.Join("test", "install", "testdata", "policy-backend"))
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(MatchRegexp(`(?s)kind: ClusterRole\n.*name: applyset-operator-policy-backend\nrules:.*- mutatingadmissionpolicies`))
		Expect(out).To(MatchRegexp(`(?s)kind: ClusterRoleBinding.*name: applyset-operator-policy-backend.*subjects:\s*- kind: ServiceAccount\s*name: applyset-operator-controller-manager\s*namespace: applyset-operator-system`))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "applyset-operator-policy-backend"}, &rbacv1.ClusterRole{})).NotTo(Succeed(),
			"the default install holds the policy backend's rights")
	})

	It("adds the right to patch CRDs, for gate notes, through its component, and only there", func(ctx context.Context) {
		out, err := env.Kubectl(ctx, "", "kustomize", filepath.Join("test", "install", "testdata", "explain-notes"))
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(MatchRegexp(`(?s)kind: ClusterRole\n.*name: applyset-operator-explain-notes\nrules:.*- customresourcedefinitions\n\s*verbs:\n\s*- patch`))
		Expect(out).To(MatchRegexp(`(?s)kind: ClusterRoleBinding.*name: applyset-operator-explain-notes.*subjects:\s*- kind: ServiceAccount\s*name: applyset-operator-controller-manager\s*namespace: applyset-operator-system`))
		out, err = env.Kubectl(ctx, "", "kustomize", filepath.Join("config", "default"))
		Expect(err).NotTo(HaveOccurred(), out)
		roles := 0
		for doc := range strings.SplitSeq(out, "\n---\n") {
			role := &rbacv1.ClusterRole{}
			Expect(yaml.Unmarshal([]byte(doc), role)).To(Succeed())
			if role.Kind != "ClusterRole" {
				continue
			}
			roles++
			for _, rule := range role.Rules {
				if slices.Contains(rule.Resources, "customresourcedefinitions") && slices.Contains(rule.APIGroups, "apiextensions.k8s.io") {
					Expect(rule.Verbs).To(ConsistOf("get", "list", "watch"), "the default install's %s may write CRDs, "+
						"and a CRD's patch can add a conversion webhook to any of them", role.Name)
				}
			}
		}
		Expect(roles).NotTo(BeZero())
	})

	It("accepts the samples", func(ctx context.Context) {
		out, err := env.Kubectl(ctx, "", "apply", "--server-side", "-k", filepath.Join("config", "samples"))
		Expect(err).NotTo(HaveOccurred(), out)

		out, err = env.Kubectl(ctx, "", "get", "applysets,clusterapplysets,customfeaturegates", "--all-namespaces", "-o", "name")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("applyset.apply.applyset.dev/web"))
		Expect(out).To(ContainSubstring("clusterapplyset.apply.applyset.dev/team-web"))
		Expect(out).To(ContainSubstring("customfeaturegates.features.applyset.dev/widgets.example.com"))
	})
})

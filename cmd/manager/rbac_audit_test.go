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

package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsfilters "sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

const (
	// operatorNamespace and operatorAccount are where and as whom the
	// install runs the manager.
	operatorNamespace = "applyset-operator-system"
	operatorAccount   = "applyset-operator-controller-manager"
	operatorUser      = "system:serviceaccount:" + operatorNamespace + ":" + operatorAccount
)

// operatorPolicy has the API server record every request the operator's
// ServiceAccount makes, as itself or impersonating another identity.
const operatorPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  users: ["` + operatorUser + `"]
- level: None
`

// rarelyUsed are the rights the install grants that a run of the spec may
// not use, each with why the operator keeps it (keyed as right.String()).
var rarelyUsed = map[string]string{
	"patch events.k8s.io/events": "the event recorder patches an Event that recurs within its series window " +
		"instead of creating another, which a run may or may not do",
	"list coordination.k8s.io/leases in " + operatorNamespace: "with --replica-sharding (config/components/replicas) " +
		"each replica lists the replicas' Leases; the spec runs one manager",
	"delete coordination.k8s.io/leases in " + operatorNamespace: "with --replica-sharding each replica deletes the Lease " +
		"of a replica gone for good; the spec runs one manager",
	"record apply.applyset.dev/applysetinventories": "never a request: the admission policy applyset-inventory asks " +
		"the authorizer for it on each write of an inventory chunk, which only the operator may make",
}

// The operator's real ServiceAccount, bound only to what the install binds
// to it (config/rbac, and the opt-in config/components/policy-backend and
// explain-notes for the phases that use them), runs every controller and the webhooks while the
// API server audits each of its requests. Each right the install grants it
// must be used by some request, and no request may be refused by the
// authorizer: a right no code path uses, or a code path without its right,
// fails the spec.
var _ = Describe("The operator's own rights", func() {
	It("are each used, and enough, while every controller and webhook runs as the installed ServiceAccount", func(ctx context.Context) {
		auditLog := filepath.Join(GinkgoT().TempDir(), "audit.log")
		env := testenv.StartForSpecsWith(ctx, controlplane.Options{AuditPolicy: operatorPolicy, AuditLog: auditLog})
		c := env.Client
		SetDefaultEventuallyTimeout(time.Minute)
		DeferCleanup(func() { SetDefaultEventuallyTimeout(30 * time.Second) })

		By("installing config/default with config/components/policy-backend and explain-notes, short of the CRDs and the Deployment")
		root, err := controlplane.Root()
		Expect(err).NotTo(HaveOccurred())
		installed, err := controlplane.Build(filepath.Join(root, "test", "install", "testdata", "audited"))
		Expect(err).NotTo(HaveOccurred())
		for _, obj := range installed {
			if obj.GetKind() == "CustomResourceDefinition" || obj.GetKind() == "Deployment" {
				continue
			}
			Expect(client.IgnoreAlreadyExists(c.Create(ctx, obj.DeepCopy()))).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
		}
		grants := grantsTo(installed, operatorNamespace, operatorAccount)
		Expect(grants).NotTo(BeEmpty())
		operator := tokenConfig(ctx, env, operatorNamespace, operatorAccount)

		By("phase 1: the policy backend, certificates rotated through the webhook Service, leader election and secure metrics")
		certDir := GinkgoT().TempDir()
		metricsPort := freePort()
		stop := runOperator(env, operator, metricsPort,
			"--featuregate-backend=auto", "--webhook-service="+operatorNamespace+"/applyset-operator-webhook-service",
			"--webhook-port="+strconv.Itoa(freePort()), "--webhook-cert-dir="+certDir)
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNamespace, Name: "applyset-operator-webhook-server-cert"}}
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(secret), secret)).To(Succeed())
			g.Expect(secret.Data).To(HaveKey("ca.crt"))
		}).Should(Succeed(), "the rotation wrote no certificate")
		for _, name := range []string{"ca.crt", "tls.crt", "tls.key"} {
			Expect(os.WriteFile(filepath.Join(certDir, name), secret.Data[name], 0o600)).To(Succeed())
		}
		Eventually(func(g Gomega) {
			config := &admissionv1.ValidatingWebhookConfiguration{}
			g.Expect(c.Get(ctx, client.ObjectKey{Name: applysets.DefaultValidationConfiguration}, config)).To(Succeed())
			g.Expect(config.Webhooks).To(ConsistOf(HaveField("ClientConfig.CABundle", Equal(secret.Data["ca.crt"]))))
		}).Should(Succeed(), "the registrar did not fill in the shipped configuration with the CA")

		tenant, err := testenv.TenantNamespace(ctx, c, "tenant-")
		Expect(err).NotTo(HaveOccurred())
		exerciseSets(ctx, env, tenant)
		scrapeMetrics(ctx, env, installed, metricsPort)

		crdA, crdB := auditCRD("alpha", true), auditCRD("beta", false)
		gatesA := gateOver(ctx, c, crdA)
		gatesB := gateOver(ctx, c, crdB)
		for _, gates := range []*featuresv1alpha1.CustomFeatureGates{gatesA, gatesB} {
			Eventually(readyReason(ctx, c, gates)).Should(Equal(featuregates.ReasonGatesEvaluated))
			Expect(c.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(gates.Name)}, &admissionv1.MutatingAdmissionPolicy{})).To(Succeed())
			Expect(c.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(gates.Name)}, &admissionv1.ValidatingAdmissionPolicy{})).To(Succeed())
		}
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(crdA), crdA)).To(Succeed())
			g.Expect(crdA.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"].Description).
				To(ContainSubstring("[features.applyset.dev]"))
		}).Should(Succeed(), "no gate note in the CRD that asked for them")
		By("deleting one CustomFeatureGates: its policies and notes go")
		Expect(c.Delete(ctx, gatesA)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(gatesA.Name)}, &admissionv1.MutatingAdmissionPolicy{}))
		}).Should(BeTrue())
		Expect(stop()).To(Succeed())

		By("phase 2: the webhook backend, asked for, removes what the policy backend left")
		webhookFlags := localWebhookFlags(env)
		stop = runOperator(env, operator, 0, append([]string{"--featuregate-backend=webhook"}, webhookFlags...)...)
		Eventually(func() bool {
			return apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: featuregate.PolicyName(gatesB.Name)}, &admissionv1.MutatingAdmissionPolicy{}))
		}).Should(BeTrue(), "the policy backend's policies stayed")
		Eventually(readyReason(ctx, c, gatesB)).Should(Equal(featuregates.ReasonGatesEvaluated))
		Expect(stop()).To(Succeed())

		By("phase 3: the default install alone, without the opt-in components: auto falls back to the webhook")
		Expect(c.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "applyset-operator-policy-backend"}})).To(Succeed())
		Expect(c.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "applyset-operator-explain-notes"}})).To(Succeed())
		Eventually(func(g Gomega) {
			operatorClient, err := client.New(operator, client.Options{})
			g.Expect(err).NotTo(HaveOccurred())
			missing, err := featuregates.MissingPolicyRights(ctx, operatorClient)
			g.Expect(err).NotTo(HaveOccurred())
			// It still reads them, as every object, for the metadata index.
			g.Expect(missing).To(ContainElements("create mutatingadmissionpolicies", "patch mutatingadmissionpolicies"))
		}).Should(Succeed())
		stop = runOperator(env, operator, 0, append([]string{"--featuregate-backend=auto"}, webhookFlags...)...)
		gatesC := gateOver(ctx, c, auditCRD("gamma", false))
		Eventually(readyReason(ctx, c, gatesC)).Should(Equal(featuregates.ReasonGatesEvaluated))
		Expect(logs.String()).To(ContainSubstring("Feature gates enforced by the webhook backend: the operator may not write admission policies"))
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "after"}}
		set.Spec.Resources = []applyv1alpha1.Resource{configMap("", "after")}
		Expect(c.Create(ctx, set)).To(Succeed())
		readyNow(ctx, c, set)
		Expect(stop()).To(Succeed())

		By("reading the audit log")
		requests, err := readOperatorRequests(auditLog)
		Expect(err).NotTo(HaveOccurred())
		Expect(requests).NotTo(BeEmpty())
		report := checkRights(grants, requests)
		GinkgoWriter.Printf("%d requests of the operator audited; rights used:\n  %s\n", len(requests), strings.Join(report.used, "\n  "))
		Expect(report.forbidden).To(BeEmpty(), "requests of the operator the authorizer refused")
		Expect(report.outside).To(BeEmpty(), "requests allowed by something else than the install and the cluster's defaults")
		var unused []string
		for _, right := range report.unused {
			if _, rare := rarelyUsed[right]; !rare {
				unused = append(unused, right)
			}
		}
		Expect(unused).To(BeEmpty(), "rights the install grants the operator that no request used")
	})
})

// runOperator runs the manager as cmd/manager sets it up, with args, on
// cfg, electing a leader in the operator's namespace; metricsPort, when
// not 0, serves secure metrics there.
func runOperator(env *testenv.Env, cfg *rest.Config, metricsPort int, args ...string) func() error {
	GinkgoHelper()
	opts, err := parseFlags(append([]string{"--leader-elect", "--leader-election-namespace=" + operatorNamespace}, args...)...)
	Expect(err).NotTo(HaveOccurred())
	stop, err := env.RunManagerAs(cfg, func(o *ctrl.Options) {
		o.LeaderElection, o.LeaderElectionID, o.LeaderElectionNamespace = true, identity.LeaderElectionID, operatorNamespace
		o.LeaderElectionReleaseOnCancel = true
		applysets.CacheOptions(&o.Cache)
		if metricsPort != 0 {
			o.Metrics = metricsserver.Options{BindAddress: "127.0.0.1:" + strconv.Itoa(metricsPort), SecureServing: true,
				FilterProvider: metricsfilters.WithAuthenticationAndAuthorization}
		}
	}, func(mgr ctrl.Manager) error { return setupControllers(mgr, cfg, opts, nil) })
	Expect(err).NotTo(HaveOccurred())
	return stop
}

// localWebhookFlags serve the webhooks where the test API server calls
// them, at the envtest serving address with its certificate.
func localWebhookFlags(env *testenv.Env) []string {
	GinkgoHelper()
	host, port, dir := env.WebhookServing()
	certDir := GinkgoT().TempDir()
	for _, name := range []string{"tls.crt", "tls.key"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(certDir, name), data, 0o600)).To(Succeed())
	}
	Expect(os.WriteFile(filepath.Join(certDir, "ca.crt"), env.WebhookCA(), 0o600)).To(Succeed())
	return []string{"--webhook-url=https://" + net.JoinHostPort(host, strconv.Itoa(port)),
		"--webhook-port=" + strconv.Itoa(port), "--webhook-cert-dir=" + certDir}
}

// exerciseSets runs what sets make the operator do: an ApplySet applied and
// pruned as the tenant's ServiceAccount, one under approval, one deleted,
// a ClusterApplySet, and kubectl's own ApplySet with an orphan beside it.
func exerciseSets(ctx context.Context, env *testenv.Env, tenant string) {
	GinkgoHelper()
	c := env.Client

	By("an ApplySet applied, then pruned")
	web := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "web"}}
	web.Spec.Resources = []applyv1alpha1.Resource{configMap("", "web-a"), configMap("", "web-b")}
	Expect(c.Create(ctx, web)).To(Succeed())
	readyNow(ctx, c, web)
	edit(ctx, c, web, func(s *applyv1alpha1.ApplySet) { s.Spec.Resources = s.Spec.Resources[:1] })
	readyNow(ctx, c, web)
	Eventually(func() bool {
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Namespace: tenant, Name: "web-b"}, &corev1.ConfigMap{}))
	}).Should(BeTrue(), "not pruned")

	By("an ApplySet under approval, approved")
	gated := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "approved"}}
	gated.Spec.Approval = applyv1alpha1.ApprovalManual
	gated.Spec.Resources = []applyv1alpha1.Resource{configMap("", "approved")}
	Expect(c.Create(ctx, gated)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(gated), gated)).To(Succeed())
		g.Expect(gated.Status.Plan).NotTo(BeNil())
		g.Expect(gated.Status.Plan.Digest).NotTo(BeEmpty())
	}).Should(Succeed(), "no plan to approve")
	edit(ctx, c, gated, func(s *applyv1alpha1.ApplySet) { s.Spec.ApprovedPlan = ptr.To(gated.Status.Plan.Digest) })
	readyNow(ctx, c, gated)

	By("an ApplySet deleted: its members go with it")
	Expect(c.Delete(ctx, web)).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(web), web))
	}).Should(BeTrue(), "the set's finalizer stayed")

	By("an ApplySet of 1,001 members, whose inventory goes in chunks, deleted with them")
	big := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "big"}}
	for i := range 1001 {
		big.Spec.Resources = append(big.Spec.Resources, configMap("", fmt.Sprintf("big-%d", i)))
	}
	Expect(c.Create(ctx, big)).To(Succeed())
	readyNow(ctx, c, big)
	Expect(big.Status.Inventory).NotTo(BeNil(), "1,001 members kept in status")
	Expect(c.Delete(ctx, big)).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(big), big))
	}).Should(BeTrue(), "the set's finalizer stayed")

	By("a ClusterApplySet acting as a ServiceAccount its author names")
	deployer := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "cluster-deployer"}}
	Expect(c.Create(ctx, deployer)).To(Succeed())
	Expect(c.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "audit-cluster-deployer"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"namespaces", "configmaps"}, Verbs: []string{"*"}}}})).To(Succeed())
	Expect(c.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "audit-cluster-deployer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "audit-cluster-deployer"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: tenant, Name: deployer.Name}}})).To(Succeed())
	cluster := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "platform-" + tenant}}
	cluster.Spec.ServiceAccountName, cluster.Spec.ServiceAccountNamespace = deployer.Name, tenant
	ns, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "platform-" + tenant}})
	Expect(err).NotTo(HaveOccurred())
	cluster.Spec.Resources = []applyv1alpha1.Resource{ns, configMap("platform-"+tenant, "platform")}
	cluster.Spec.AdditionalNamespaces = []string{"platform-" + tenant}
	Expect(c.Create(ctx, cluster)).To(Succeed())
	readyNow(ctx, c, cluster)

	By("kubectl's own ApplySet, which the operator verifies, and a member whose parent is gone")
	out, err := env.Kubectl(ctx, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: by-kubectl}\n",
		"apply", "--server-side", "--prune", "--applyset=secret/by-kubectl", "-n", tenant, "-f", "-")
	Expect(err).NotTo(HaveOccurred(), out)
	orphan := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "orphan",
		Labels: map[string]string{"applyset.kubernetes.io/part-of": "applyset-gone-v1"}}}
	Expect(c.Create(ctx, orphan)).To(Succeed())
	Eventually(testenv.EventReasons(ctx, c, tenant, "orphan")).ShouldNot(BeEmpty(), "the orphan was not reported")
}

// scrapeMetrics reads the operator's secure metrics as a ServiceAccount
// bound to the install's metrics-reader role: the operator asks the API
// server who it is and whether it may.
func scrapeMetrics(ctx context.Context, env *testenv.Env, installed []*unstructured.Unstructured, port int) {
	GinkgoHelper()
	c := env.Client
	var reader string
	for _, obj := range installed {
		if obj.GetKind() == "ClusterRole" && strings.HasSuffix(obj.GetName(), "metrics-reader") {
			reader = obj.GetName()
		}
	}
	Expect(reader).NotTo(BeEmpty())
	scraper := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "scraper"}}
	Expect(c.Create(ctx, scraper)).To(Succeed())
	Expect(c.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "audit-scraper"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "default", Name: "scraper"}}})).To(Succeed())
	token := tokenConfig(ctx, env, "default", "scraper").BearerToken
	httpClient := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the metrics server's own self-signed certificate
	Eventually(func(g Gomega) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://127.0.0.1:"+strconv.Itoa(port)+"/metrics", nil)
		g.Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := httpClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		defer func() { _ = resp.Body.Close() }()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}).Should(Succeed(), "the metrics were not served to the reader")
}

// tokenConfig reaches the API server as the ServiceAccount ns/name, with a
// token the API server issued for it.
func tokenConfig(ctx context.Context, env *testenv.Env, ns, name string) *rest.Config {
	GinkgoHelper()
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	Expect(env.Client.SubResource("token").Create(ctx, sa, request)).To(Succeed())
	cfg := &rest.Config{Host: env.Config.Host, BearerToken: request.Status.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: env.Config.CAData}, QPS: -1}
	return cfg
}

// auditCRD is a namespaced CRD with an integer .spec.size, asking for gate
// notes when explain is set.
func auditCRD(name string, explain bool) *apiextensionsv1.CustomResourceDefinition {
	crd := testenv.OpenCRD(name+".audit.example.com", "Widget")
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema = &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}, "old": {Type: "string"}}}}}
	if explain {
		crd.Annotations = map[string]string{featuregate.ExplainAnnotation: "true"}
	}
	return crd
}

// gateOver creates crd and a CustomFeatureGates over it with a disabled gate
// and a Deprecated one that is on (the policy backend warns of its field
// through a validating policy).
func gateOver(ctx context.Context, c client.Client, crd *apiextensionsv1.CustomResourceDefinition) *featuresv1alpha1.CustomFeatureGates {
	GinkgoHelper()
	Expect(c.Create(ctx, crd)).To(Succeed())
	gates := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: crd.Name}}
	gates.Spec.FeatureGates = []featuresv1alpha1.FeatureGate{
		{Name: "Size", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.size"}},
		{Name: "Old", PreRelease: featuresv1alpha1.Deprecated, Default: ptr.To(true), FieldPaths: []string{".spec.old"}},
	}
	Expect(c.Create(ctx, gates)).To(Succeed())
	return gates
}

// readyReason is the reason of the gates' Ready condition, when True.
func readyReason(ctx context.Context, c client.Client, gates *featuresv1alpha1.CustomFeatureGates) func() (string, error) {
	return func() (string, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(gates), gates); err != nil {
			return "", err
		}
		ready := apimeta.FindStatusCondition(gates.Status.Conditions, featuresv1alpha1.ConditionReady)
		if ready == nil || ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != gates.Generation {
			return fmt.Sprint(ready), nil
		}
		return ready.Reason, nil
	}
}

func freePort() int {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// grant is one rule of a role the install binds to the operator.
type grant struct {
	// role names the role and its binding; namespace is the RoleBinding's,
	// "" for a ClusterRoleBinding.
	role, namespace string
	rule            rbacv1.PolicyRule
}

// grantsTo are the rules of the roles the installed objects bind to the
// ServiceAccount ns/name.
func grantsTo(objs []*unstructured.Unstructured, ns, name string) []grant {
	GinkgoHelper()
	roles := map[string][]rbacv1.PolicyRule{} // by kind/namespace/name
	for _, obj := range objs {
		if obj.GetKind() != "ClusterRole" && obj.GetKind() != "Role" {
			continue
		}
		var role rbacv1.Role
		Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &role)).To(Succeed())
		roles[obj.GetKind()+"/"+obj.GetNamespace()+"/"+obj.GetName()] = role.Rules
	}
	var grants []grant
	for _, obj := range objs {
		if obj.GetKind() != "ClusterRoleBinding" && obj.GetKind() != "RoleBinding" {
			continue
		}
		var binding rbacv1.RoleBinding
		Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &binding)).To(Succeed())
		if !slices.ContainsFunc(binding.Subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && s.Namespace == ns && s.Name == name
		}) {
			continue
		}
		roleNS := ""
		if binding.RoleRef.Kind == "Role" {
			roleNS = binding.Namespace
		}
		rules, ok := roles[binding.RoleRef.Kind+"/"+roleNS+"/"+binding.RoleRef.Name]
		Expect(ok).To(BeTrue(), "%s %s binds a role the install does not ship", obj.GetKind(), obj.GetName())
		for _, rule := range rules {
			grants = append(grants, grant{role: binding.RoleRef.Kind + " " + binding.RoleRef.Name, namespace: binding.Namespace, rule: rule})
		}
	}
	return grants
}

// operatorRequest is one request of the operator the API server audited.
type operatorRequest struct {
	verb, group, resource, subresource, namespace, name string
	// as is the identity the operator impersonated, "" for its own.
	as string
	// code is the answer's status code; decision and reason the
	// authorizer's (for the request as made, impersonated or not).
	code             int32
	decision, reason string
	message          string
	uri              string
}

func (r operatorRequest) String() string {
	s := r.verb + " " + r.resource
	if r.subresource != "" {
		s += "/" + r.subresource
	}
	if r.group != "" {
		s += "." + r.group
	}
	if r.namespace != "" {
		s += " in " + r.namespace
	}
	if r.name != "" {
		s += " named " + r.name
	}
	if r.as != "" {
		s += " as " + r.as
	}
	return fmt.Sprintf("%s (%d %s%s)", s, r.code, r.decision, strings.TrimPrefix(" "+r.message, " "))
}

// readOperatorRequests reads the completed requests of the operator from
// the audit log at path; non-resource requests (discovery) have no verb
// the install grants, and are kept for the refusals.
func readOperatorRequests(path string) ([]operatorRequest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var requests []operatorRequest
	scanner := bufio.NewScanner(f)
	scanner.Buffer(nil, 16<<20)
	for scanner.Scan() {
		var ev auditv1.Event
		if err := json.Unmarshal(scanner.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("an audit event: %w", err)
		}
		if ev.User.Username != operatorUser || ev.Stage != auditv1.StageResponseComplete && ev.Stage != auditv1.StagePanic {
			continue
		}
		r := operatorRequest{verb: ev.Verb, uri: ev.RequestURI,
			decision: ev.Annotations["authorization.k8s.io/decision"], reason: ev.Annotations["authorization.k8s.io/reason"]}
		if ev.ImpersonatedUser != nil {
			r.as = ev.ImpersonatedUser.Username
		}
		if ev.ResponseStatus != nil {
			r.code, r.message = ev.ResponseStatus.Code, ev.ResponseStatus.Message
		}
		if ref := ev.ObjectRef; ref != nil {
			r.group, r.resource, r.subresource, r.namespace, r.name = ref.APIGroup, ref.Resource, ref.Subresource, ref.Namespace, ref.Name
		}
		requests = append(requests, r)
	}
	return requests, scanner.Err()
}

// rightsReport is what the audited requests say of the operator's rights.
type rightsReport struct {
	// used and unused are the rights granted, each "verb group/resource"
	// with the names and namespace it is limited to.
	used, unused []string
	// forbidden are the requests the authorizer refused; outside, those of
	// the operator's own that neither the install's roles nor the
	// cluster's default ones (system:*) allowed.
	forbidden, outside []string
}

// checkRights compares the requests with the grants.
func checkRights(grants []grant, requests []operatorRequest) rightsReport {
	// The rights the requests exercised: the operator's own requests, and
	// the impersonation each impersonated one needed.
	var exercised []operatorRequest
	var report rightsReport
	for _, r := range requests {
		refusedImpersonation := r.code == http.StatusForbidden && strings.Contains(r.message, "cannot impersonate")
		if r.code == http.StatusForbidden && (r.decision == "forbid" || refusedImpersonation) {
			report.forbidden = append(report.forbidden, r.String())
		}
		switch {
		case r.as != "":
			imp := operatorRequest{verb: "impersonate", resource: "users", name: r.as}
			if sa, ok := strings.CutPrefix(r.as, "system:serviceaccount:"); ok {
				imp.resource = "serviceaccounts"
				imp.namespace, imp.name, _ = strings.Cut(sa, ":")
			}
			exercised = append(exercised, imp)
		case r.resource != "" && r.decision == "allow":
			exercised = append(exercised, r)
			if r.verb == "patch" && r.code == http.StatusCreated {
				// A server-side apply that creates the object is authorized
				// for create too, within the request.
				created := r
				created.verb = "create"
				exercised = append(exercised, created)
			}
			if !slices.ContainsFunc(grants, func(g grant) bool { return g.allowsAny(r) }) &&
				!strings.Contains(r.reason, `ClusterRoleBinding "system:`) {
				report.outside = append(report.outside, r.String()+": "+r.reason)
			}
		}
	}
	for _, g := range grants {
		for _, right := range g.rights() {
			key := right.String()
			if i := slices.IndexFunc(exercised, right.allows); i >= 0 {
				report.used = append(report.used, key+" ("+g.role+"): "+exercised[i].String())
			} else {
				report.unused = append(report.unused, key)
			}
		}
	}
	slices.Sort(report.used)
	report.used = slices.Compact(report.used)
	return report
}

// right is one verb on one resource of one group that a grant gives.
type right struct {
	grant
	verb, group, resource string
}

func (r right) String() string {
	s := r.verb + " " + r.group + "/" + r.resource
	if len(r.rule.ResourceNames) > 0 {
		s += " named " + strings.Join(r.rule.ResourceNames, ",")
	}
	if r.namespace != "" {
		s += " in " + r.namespace
	}
	return s
}

// rights splits the grant into its verbs, groups and resources.
func (g grant) rights() []right {
	var out []right
	for _, verb := range g.rule.Verbs {
		for _, group := range g.rule.APIGroups {
			for _, resource := range g.rule.Resources {
				out = append(out, right{grant: g, verb: verb, group: group, resource: resource})
			}
		}
	}
	return out
}

// allowsAny says whether some right of the grant allows req.
func (g grant) allowsAny(req operatorRequest) bool {
	return slices.ContainsFunc(g.rights(), func(r right) bool { return r.allows(req) })
}

// allows says whether the right allows req, as RBAC matches a rule. A
// right to list is used by a watch too: client-go's informers list through
// a streaming watch (WatchListClient) where the API server serves one, and
// with a list where it does not, so the right stays for those.
func (r right) allows(req operatorRequest) bool {
	if r.verb == "list" && req.verb == "watch" {
		req.verb = "list"
	}
	resource := req.resource
	if req.subresource != "" {
		resource += "/" + req.subresource
	}
	switch {
	case r.verb != "*" && r.verb != req.verb,
		r.group != "*" && r.group != req.group,
		r.namespace != "" && r.namespace != req.namespace,
		len(r.rule.ResourceNames) > 0 && !slices.Contains(r.rule.ResourceNames, req.name):
		return false
	}
	return r.resource == "*" || r.resource == resource ||
		strings.HasSuffix(r.resource, "/*") && strings.TrimSuffix(r.resource, "/*") == req.resource && req.subresource != "" ||
		strings.HasPrefix(r.resource, "*/") && strings.TrimPrefix(r.resource, "*/") == req.subresource
}

func TestCheckRights(t *testing.T) {
	grants := []grant{
		{role: "ClusterRole manager", rule: rbacv1.PolicyRule{APIGroups: []string{"apply.applyset.dev"},
			Resources: []string{"applysets", "applysets/status"}, Verbs: []string{"list", "watch", "patch"}}},
		{role: "Role cert", namespace: "ops", rule: rbacv1.PolicyRule{APIGroups: []string{""},
			Resources: []string{"secrets"}, ResourceNames: []string{"cert"}, Verbs: []string{"update"}}},
		{role: "ClusterRole policies", rule: rbacv1.PolicyRule{APIGroups: []string{"admissionregistration.k8s.io"},
			Resources: []string{"mutatingadmissionpolicies"}, Verbs: []string{"create", "patch", "delete"}}},
		{role: "ClusterRole impersonator", rule: rbacv1.PolicyRule{APIGroups: []string{""},
			Resources: []string{"users"}, ResourceNames: []string{"probe"}, Verbs: []string{"impersonate"}}},
	}
	requests := []operatorRequest{
		{verb: "watch", group: "apply.applyset.dev", resource: "applysets", code: 200, decision: "allow"},
		{verb: "patch", group: "apply.applyset.dev", resource: "applysets", subresource: "status", namespace: "t", name: "s", code: 200, decision: "allow"},
		// Another Secret, in another namespace: not the Role's.
		{verb: "update", resource: "secrets", namespace: "other", name: "cert", code: 403, decision: "forbid"},
		// A server-side apply that created the policy.
		{verb: "patch", group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicies", name: "p", code: 201, decision: "allow"},
		{verb: "create", group: "authorization.k8s.io", resource: "selfsubjectaccessreviews", code: 201, decision: "allow",
			reason: `RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"`},
		{verb: "get", resource: "configmaps", namespace: "t", name: "c", code: 200, decision: "allow",
			reason: `RBAC: allowed by ClusterRoleBinding "too-wide" of ClusterRole "cluster-admin" to User "x"`},
		{verb: "get", resource: "configmaps", namespace: "t", name: "c", as: "probe", code: 200, decision: "allow"},
		{verb: "get", resource: "configmaps", namespace: "t", name: "c", as: "someone", code: 403,
			message: `users "someone" is forbidden: User "op" cannot impersonate resource "users" in API group "" at the cluster scope`},
	}
	report := checkRights(grants, requests)
	wantUnused := []string{"patch apply.applyset.dev/applysets", "list apply.applyset.dev/applysets/status",
		"watch apply.applyset.dev/applysets/status", "update /secrets named cert in ops", "delete admissionregistration.k8s.io/mutatingadmissionpolicies"}
	if diff := cmp.Diff(wantUnused, report.unused, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("unused (-want +got):\n%s", diff)
	}
	if len(report.forbidden) != 2 {
		t.Errorf("forbidden = %q, want the Secret's update and the impersonation", report.forbidden)
	}
	if len(report.outside) != 1 || !strings.Contains(report.outside[0], "too-wide") {
		t.Errorf("outside = %q, want the get allowed by too-wide", report.outside)
	}
}

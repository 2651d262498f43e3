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
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// everyRequest audits every request's metadata: who made it, with which agent.
const everyRequest = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
`

// auditEvent is what the spec reads of an audit event.
type auditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ImpersonatedUser *struct {
		Username string `json:"username"`
	} `json:"impersonatedUser"`
	ObjectRef struct {
		Resource string `json:"resource"`
	} `json:"objectRef"`
}

var _ = Describe("kubectl applyset ui's identity", func() {
	It("makes every request, reads, watches and the approval alike, as the user of the kubeconfig", func(ctx context.Context) {
		tab := browser(ctx)
		auditLog := filepath.Join(GinkgoT().TempDir(), "audit.log")
		audited := testenv.StartForSpecsWith(ctx, controlplane.Options{AuditPolicy: everyRequest, AuditLog: auditLog})
		audited.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
		c := audited.Client
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "audit-"}}
		Expect(c.Create(ctx, ns)).To(Succeed())
		Expect(testenv.GrantDefault(ctx, c, ns.Name)).To(Succeed())

		By("a reviewer who may do anything in the namespace, approving included, with a kubeconfig of its own")
		reviewer := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "reviewer"}}
		Expect(c.Create(ctx, reviewer)).To(Succeed())
		Expect(c.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "reviewer"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns.Name, Name: "reviewer"}}})).To(Succeed())
		// list reads the CRDs to find parent types, as the viewer ClusterRole allows.
		Expect(c.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns.Name + "-crds"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get", "list"}}}})).
			To(Succeed())
		Expect(c.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ns.Name + "-crds"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ns.Name + "-crds"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns.Name, Name: "reviewer"}}})).To(Succeed())
		token := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}
		Expect(c.SubResource("token").Create(ctx, reviewer, token)).To(Succeed())
		kubeconfig := filepath.Join(GinkgoT().TempDir(), "reviewer.kubeconfig")
		Expect(clientcmd.WriteToFile(clientcmdapi.Config{
			Clusters:       map[string]*clientcmdapi.Cluster{"c": {Server: audited.Config.Host, CertificateAuthorityData: audited.Config.CAData}},
			AuthInfos:      map[string]*clientcmdapi.AuthInfo{"reviewer": {Token: token.Status.Token}},
			Contexts:       map[string]*clientcmdapi.Context{"c": {Cluster: "c", AuthInfo: "reviewer", Namespace: ns.Name}},
			CurrentContext: "c",
		}, kubeconfig)).To(Succeed())

		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gated"}}
		set.Spec.Resources, set.Spec.Approval = []applyv1alpha1.Resource{configMapResource("d", "one")}, applyv1alpha1.ApprovalManual
		Expect(c.Create(ctx, set)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			g.Expect(set.Status.Plan).NotTo(BeNil())
			g.Expect(set.Status.Plan.Digest).NotTo(BeEmpty())
		}).Should(Succeed())

		By("browsing the sets, a set's page with its live updates, and approving its plan")
		url := runUI(ctx, buildPlugin(ctx), kubeconfig)
		Expect(chromedp.Do(tab, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#unapplied")))).To(Succeed())
		Expect(chromedp.Do(tab, chromedp.Navigate(url+"sets/"+ns.Name+"/applyset.apply.applyset.dev/gated/plan"),
			chromedp.WaitVisible(chromedp.CSS("#approve button")), chromedp.Click(chromedp.CSS("#approve button")))).To(Succeed())
		Eventually(func() string { return run(tab, chromedp.Text(chromedp.CSS("#approve-result"))) }).Should(HavePrefix("Approved plan"))
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			g.Expect(set.Labels).To(HaveKey(applyset.IDLabel))
		}).Should(Succeed())
		// The reviewer may list ConfigMaps in its namespace only: the page lists them there.
		Expect(chromedp.Do(tab, chromedp.Navigate(url+"sets/"+ns.Name+"/applyset.apply.applyset.dev/gated"),
			chromedp.WaitVisible(chromedp.CSS("#members")), chromedp.WaitReady(chromedp.CSS(`#live-status[data-stream="open"]`)))).To(Succeed())
		Expect(run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#members tbody th")].map(th => th.textContent)`))).To(Equal([]string{"d"}))
		Expect(run(tab, chromedp.Text(chromedp.CSS(".warnings")))).To(MatchRegexp(`you may not list \d+ types in every namespace \(.*\), so they were listed in namespace ` + ns.Name + ` only`))
		Expect(c.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		set.Labels = map[string]string{"touched": "yes"}
		Expect(c.Update(ctx, set)).To(Succeed())
		Eventually(func() string { return run(tab, chromedp.Text(chromedp.CSS("#live-status"))) }).Should(HavePrefix("Updated at"))

		By("reading the API server's audit of the ui's requests")
		user := "system:serviceaccount:" + ns.Name + ":reviewer"
		verbs := sets.New[string]()
		Eventually(func(g Gomega) {
			for _, e := range auditedFrom(auditLog, "kubectl-applyset/") {
				g.Expect(e.User.Username).To(Equal(user), "a %s of %s", e.Verb, e.ObjectRef.Resource)
				g.Expect(e.ImpersonatedUser).To(BeNil(), "a %s of %s", e.Verb, e.ObjectRef.Resource)
				verbs.Insert(e.Verb + " " + e.ObjectRef.Resource)
			}
			g.Expect(sets.List(verbs)).To(ContainElements("list secrets", "get applysets", "watch applysets", "watch events", "patch applysets"))
		}).Should(Succeed())
	})
})

// runUI runs the plugin built in dir as a program of its own, so that the API
// server's audit tells its requests apart by their user agent, and returns
// the URL it printed first.
func runUI(ctx context.Context, dir, kubeconfig string) string {
	GinkgoHelper()
	cmd := exec.CommandContext(context.WithoutCancel(ctx), filepath.Join(dir, "kubectl-applyset"), "ui", "--yes", "--kubeconfig", kubeconfig)
	cmd.Stderr = GinkgoWriter
	out, err := cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(cmd.Start()).To(Succeed())
	DeferCleanup(func() {
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed()) // as Ctrl-C does
		Expect(cmd.Wait()).To(Succeed(), "the server did not stop cleanly")
	})
	lines := bufio.NewReader(out)
	url, err := lines.ReadString('\n')
	Expect(err).NotTo(HaveOccurred())
	go func() { _, _ = lines.WriteTo(GinkgoWriter) }()
	return strings.TrimSpace(url)
}

// auditedFrom reads the audit events of the requests whose user agent starts with agent.
func auditedFrom(auditLog, agent string) []auditEvent {
	GinkgoHelper()
	f, err := os.Open(auditLog)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = f.Close() }()
	var out []auditEvent
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		var e auditEvent
		Expect(json.Unmarshal(scanner.Bytes(), &e)).To(Succeed())
		if strings.HasPrefix(e.UserAgent, agent) {
			out = append(out, e)
		}
	}
	Expect(scanner.Err()).NotTo(HaveOccurred())
	return out
}

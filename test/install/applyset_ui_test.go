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
	"io"
	"net/http"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	ctrl "sigs.k8s.io/controller-runtime"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var _ = Describe("kubectl applyset ui", Ordered, func() {
	BeforeAll(func() {
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
	})

	serve := serveUI
	get := func(url string) (int, string) {
		GinkgoHelper()
		resp, err := http.Get(url)
		Expect(err).NotTo(HaveOccurred())
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		return resp.StatusCode, string(body)
	}
	page := func(url string) string {
		GinkgoHelper()
		code, body := get(url)
		Expect(code).To(Equal(http.StatusOK), body)
		return body
	}
	// row matches a table row's cells, in order, as the templates write them.
	row := func(cells ...string) string {
		return `<tr[^>]*>\s*` + strings.Join(cells, `\s*`) + `\s*</tr>`
	}

	It("lists kubectl's and the operator's sets, linked to pages that list their members as text", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		const manifests = `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {selector: {matchLabels: {app: web}},
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: config}, data: {k: v}}
`
		kubectlSucceeds(ctx, manifests, "apply", "--server-side", "--prune", "--applyset=secret/web", "-n", ns, "-f", "-")
		createReady(ctx, &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}}, "c")

		url := serve(ctx, "-n", ns)
		index := page(url)
		q := regexp.QuoteMeta
		// The same rows and words as kubectl applyset list; no controller rolls the Deployment out here.
		Expect(index).To(MatchRegexp(row(`<td>`+q(ns)+`</td>`, `<th scope="row"><a href="/sets/`+q(ns)+`/secret/web">secret/web</a></th>`,
			`<td>`+toolingPattern()+`</td>`, `<td>2</td>`, `<td>&lt;none&gt;</td>`, `<td>1/2 ready</td>`, `<td>[^<]+</td>`)))
		Expect(index).To(MatchRegexp(row(`<td>`+q(ns)+`</td>`,
			`<th scope="row"><a href="/sets/`+q(ns)+`/applyset\.apply\.applyset\.dev/shop">applyset\.apply\.applyset\.dev/shop</a></th>`,
			`<td>applyset-operator/v0\.1\.0</td>`, `<td>1</td>`, `<td>&lt;none&gt;</td>`, `<td>1/1 ready</td>`, `<td>[^<]+</td>`)))
		Expect(index).To(MatchRegexp(`<meta name="applyset-token" content="[A-Za-z0-9_-]{43}">`))

		web := page(url + "sets/" + ns + "/secret/web")
		Expect(web).To(MatchRegexp(row(`<td>3</td>`, `<td>Deployment\.apps</td>`, `<td>`+q(ns)+`</td>`, `<th scope="row">web</th>`,
			`<td><span class="health-progress">InProgress</span></td>`, `<td>applied</td>`, `<td></td>`, `<td>[^<]+</td>`)))
		Expect(web).To(MatchRegexp(row(`<td>2</td>`, `<td>ConfigMap</td>`, `<td>`+q(ns)+`</td>`, `<th scope="row">config</th>`,
			`<td><span class="health-current">Current</span></td>`, `<td>applied</td>`, `<td></td>`, `<td>[^<]*</td>`)))
		Expect(web).NotTo(ContainSubstring("<h2 id=\"conditions-heading\">"), "kubectl's sets have no conditions")

		shop := page(url + "sets/" + ns + "/applyset.apply.applyset.dev/shop")
		Expect(shop).To(MatchRegexp(row(`<td>2</td>`, `<td>ConfigMap</td>`, `<td>`+q(ns)+`</td>`, `<th scope="row">c</th>`,
			`<td><span class="health-current">Current</span></td>`, `<td>recorded</td>`, `<td></td>`, `<td>[^<]*</td>`)))
		Expect(shop).To(MatchRegexp(`<tr><th scope="row">Ready</th><td>True</td><td>Succeeded</td>`))
	})

	It("answers a page that names no set with 404, and a rebound host name with 421", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		url := serve(ctx, "-n", ns)
		code, body := get(url + "sets/" + ns + "/secret/missing")
		Expect(code).To(Equal(http.StatusNotFound))
		Expect(body).To(ContainSubstring("secret/missing not found in namespace " + ns))
		code, _ = get(url + "sets/_/secret/missing")
		Expect(code).To(Equal(http.StatusNotFound))

		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		Expect(err).NotTo(HaveOccurred())
		req.Host = "evil.example:" + strings.TrimSuffix(strings.SplitN(url, ":", 3)[2], "/")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		Expect(resp.StatusCode).To(Equal(http.StatusMisdirectedRequest))
	})
})

// serveUI runs `kubectl applyset ui` as a user runs it, with args, until the
// spec ends, and returns the URL it printed first.
func serveUI(ctx context.Context, args ...string) string {
	GinkgoHelper()
	out := &testenv.SyncBuffer{}
	cmd := applysetcli.NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: GinkgoWriter})
	cmd.SetArgs(append([]string{"--kubeconfig", env.Kubeconfig, "ui", "--yes"}, args...))
	served, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(served) }()
	DeferCleanup(func() {
		stop() // as Ctrl-C does
		Eventually(done).Should(Receive(BeNil()), "the server did not stop cleanly")
	})
	var url string
	Eventually(func() string { url, _, _ = strings.Cut(out.String(), "\n"); return url }).
		Should(MatchRegexp(`^http://127\.0\.0\.1:\d+/([A-Za-z0-9_-]{43}/)?$`))
	return url
}

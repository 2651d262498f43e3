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
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// docsScreenshots, when set, makes the specs also write the screenshots the
// docs show into docs/images (make screenshots).
const docsScreenshots = "APPLYSET_DOCS_SCREENSHOTS"

// memberRow is a row of a set's members table as the browser draws it.
type memberRow struct {
	Name   string `json:"name"`
	Health string `json:"health"`
	Class  string `json:"class"`
	Color  string `json:"color"`
}

// readMembers reads the rows of the members table, with the health word's
// class and the colour the style sheet gives it.
const readMembers = `[...document.querySelectorAll("#members tbody tr")].map(tr => {
  const span = tr.querySelector("td span");
  return {name: tr.querySelector("th").textContent, health: span.textContent,
    class: span.className, color: getComputedStyle(span).color};
})`

// graphNode is a node of a set's graph as the browser draws it.
type graphNode struct {
	Label  string `json:"label"`
	Health string `json:"health"`
	Class  string `json:"class"`
	Href   string `json:"href"`
	Owns   string `json:"owns"`
}

// readGraph reads the nodes of a set's graph: their two lines of text, class and link.
const readGraph = `[...document.querySelectorAll("#graph-canvas g.node")].map(g => ({
  label: g.querySelector(".node-label").textContent, health: g.querySelector(".node-health").textContent,
  class: g.getAttribute("class"), href: g.closest("a").getAttribute("href"),
  owns: (g.querySelector(".node-owns") || {textContent: ""}).textContent}))`

var _ = Describe("kubectl applyset ui in a browser", Ordered, func() {
	BeforeAll(func() {
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
	})

	It("lists kubectl's and the operator's sets, and a click on a set opens its page", func(ctx context.Context) {
		tab := browser(ctx)
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		kubectlSucceeds(ctx, configMapManifest("config"), "apply", "--server-side", "--prune", "--applyset=secret/web", "-n", ns, "-f", "-")
		createReady(ctx, &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}}, "c")
		url := serveUI(ctx, "-n", ns)

		Expect(chromedp.Do(tab, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#sets")))).To(Succeed())
		rows := run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#sets tbody tr")].map(tr => tr.innerText)`))
		Expect(rows).To(ConsistOf(
			MatchRegexp(`^`+ns+`\s+secret/web\s+`+toolingPattern()+`\s+1\s+<none>\s+1/1 ready\s+\S+$`),
			MatchRegexp(`^`+ns+`\s+applyset\.apply\.applyset\.dev/shop\s+applyset-operator/v0\.1\.0\s+1\s+<none>\s+1/1 ready\s+\S+$`),
		))
		screenshot(tab, "sets-list")

		Expect(chromedp.Do(tab,
			chromedp.Click(chromedp.CSS(`#sets a[href="/sets/`+ns+`/applyset.apply.applyset.dev/shop"]`)),
			chromedp.WaitVisible(chromedp.CSS("#members")),
		)).To(Succeed())
		Expect(run(tab, chromedp.Location())).To(Equal(url + "sets/" + ns + "/applyset.apply.applyset.dev/shop"))
		Expect(run(tab, chromedp.Text(chromedp.CSS("h1")))).To(Equal("applyset.apply.applyset.dev/shop"))
		Expect(run(tab, chromedp.Evaluate[[]memberRow](readMembers))).To(ConsistOf(memberRow{Name: "c", Health: "Current", Class: "health-current", Color: "rgb(17, 99, 41)"}))
		screenshot(tab, "set-page")

		By("opening the newest entry of its history: its counts, declaration and plan")
		Expect(run(tab, chromedp.Text(chromedp.CSS("#history li:first-child summary")))).To(MatchRegexp(`^\S+Z: Succeeded, generation 1`))
		Expect(chromedp.Do(tab, chromedp.Click(chromedp.CSS("#history li:first-child summary")),
			chromedp.WaitVisible(chromedp.CSS("#history li:first-child dl")))).To(Succeed())
		Expect(run(tab, chromedp.Text(chromedp.CSS("#history li:first-child dl")))).To(SatisfyAll(
			MatchRegexp(`Applied\s+1`), MatchRegexp(`Failed\s+0`), MatchRegexp(`Declared\s+sha256:[0-9a-f]{64}`)))
	})

	It("marks a failing member as Failed, in the failing style, and a working one as Current", func(ctx context.Context) {
		tab := browser(ctx)
		ns := pluginNamespace(ctx)
		kubectlSucceeds(ctx, deploymentManifest("web")+"---\n"+configMapManifest("config"),
			"apply", "--server-side", "--prune", "--applyset=secret/web", "-n", ns, "-f", "-")
		// No controller rolls Deployments out here: the status a controller
		// writes when a rollout misses its deadline, which kstatus calls Failed.
		kubectlSucceeds(ctx, "", "patch", "deployment", "web", "-n", ns, "--subresource=status", "--type=merge", "-p",
			`{"status": {"observedGeneration": 1, "conditions": [{"type": "Progressing", "status": "False",
			 "reason": "ProgressDeadlineExceeded", "message": "ReplicaSet \"web-1\" has timed out progressing."}]}}`)
		ownPods(ctx, ns, "web", 2)
		url := serveUI(ctx, "-n", ns)

		Expect(chromedp.Do(tab, chromedp.Navigate(url+"sets/"+ns+"/secret/web"), chromedp.WaitVisible(chromedp.CSS("#members")))).To(Succeed())
		Expect(run(tab, chromedp.Evaluate[[]memberRow](readMembers))).To(ConsistOf(
			memberRow{Name: "web", Health: "Failed", Class: "health-failed", Color: "rgb(164, 14, 38)"},
			memberRow{Name: "config", Health: "Current", Class: "health-current", Color: "rgb(17, 99, 41)"},
		))
		Expect(run(tab, chromedp.Evaluate[string](`[...document.querySelectorAll("#members tbody tr")].find(tr => tr.querySelector("th").textContent === "web").lastElementChild.textContent`))).To(Equal("Progress deadline exceeded"), "kstatus's message for the Failed member")
		Expect(run(tab, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("pending")).display`))).To(Equal("none"),
			"the note that the members are being read, once they are there")

		By("drawing the members as a graph in apply order, the failing one in the failing style")
		Expect(chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS("#graph-canvas svg")))).To(Succeed())
		Expect(run(tab, chromedp.Evaluate[[]graphNode](readGraph))).To(ConsistOf(
			graphNode{Label: "Deployment.apps web", Health: "Failed", Class: "node health-failed", Href: "#member-2", Owns: "owns 1 ReplicaSet, 2 Pods"},
			graphNode{Label: "ConfigMap config", Health: "Current", Class: "node health-current", Href: "#member-1"},
		))
		Expect(run(tab, chromedp.Text(chromedp.CSS("#member-2 td:nth-last-child(2)")))).To(Equal("1 ReplicaSet, 2 Pods"),
			"the ReplicaSet and its Pods are folded under the Deployment in the table too")
		Expect(run(tab, chromedp.Evaluate[bool](`(() => { const x = c => document.querySelector("#graph-canvas g." + c).getBoundingClientRect().x;
			return x("health-current") < x("health-failed"); })()`))).To(BeTrue(), "the ConfigMap's group is applied before the Deployment's and is drawn left of it")
		screenshot(tab, "set-failing-member")
	})

	It("with --token-in-url, opens the printed URL and the pages it links to, and no page without the read secret, which no other port of the host receives", func(ctx context.Context) {
		tab := browser(ctx)
		ns := pluginNamespace(ctx)
		kubectlSucceeds(ctx, configMapManifest("config"), "apply", "--server-side", "--prune", "--applyset=secret/keys", "-n", ns, "-f", "-")
		printed := serveUI(ctx, "-n", ns, "--token-in-url")
		host, secret, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(printed, "http://"), "/"), "/")
		Expect(secret).To(HaveLen(43), "the printed URL carries no read secret: %s", printed)
		base := "http://" + host + "/"

		Expect(chromedp.Do(tab, chromedp.Navigate(base+"sets/"+ns+"/secret/keys"))).To(Succeed())
		Expect(run(tab, chromedp.Text(chromedp.CSS("body")))).To(ContainSubstring("open the URL kubectl applyset ui printed"))

		Expect(chromedp.Do(tab, chromedp.Navigate(printed), chromedp.WaitVisible(chromedp.CSS("#sets")))).To(Succeed())
		Expect(run(tab, chromedp.Location())).To(Equal(printed))
		Expect(chromedp.Do(tab, chromedp.Click(chromedp.CSS(`#sets a[href="/`+secret+`/sets/`+ns+`/secret/keys"]`)),
			chromedp.WaitVisible(chromedp.CSS("#members")),
			chromedp.WaitReady(chromedp.CSS(`#live-status[data-stream="open"]`)))).To(Succeed(), "the set's page and its stream of changes, under the read secret")
		Expect(run(tab, chromedp.Location())).To(Equal(printed + "sets/" + ns + "/secret/keys"))
		Expect(run(tab, chromedp.Evaluate[[]memberRow](readMembers))).To(HaveLen(1))
		cookies := run(tab, func(ctx context.Context, t *chromedp.Target) ([]*network.Cookie, error) {
			got, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{URLs: []string{base}})
			return got.Cookies, err
		})
		Expect(cookies).To(BeEmpty(), "the browser keeps no cookie of the page's host")

		By("opening a server on another port of 127.0.0.1, which a browser sends that host's cookies to")
		heard := make(chan string, 1)
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case heard <- r.Header.Get("Cookie"):
			default:
			}
			_, _ = w.Write([]byte("another server"))
		}))
		DeferCleanup(other.Close)
		Expect(chromedp.Do(tab, chromedp.Navigate(other.URL+"/"), chromedp.WaitVisible(chromedp.CSS("body")))).To(Succeed())
		Eventually(heard).Should(Receive(Not(ContainSubstring(secret))), "another port of 127.0.0.1 received the read secret")
	})

	It("reaches a set's link by Tab and opens it with Enter", func(ctx context.Context) {
		tab := browser(ctx)
		ns := pluginNamespace(ctx)
		kubectlSucceeds(ctx, configMapManifest("config"), "apply", "--server-side", "--prune", "--applyset=secret/keys", "-n", ns, "-f", "-")
		url := serveUI(ctx, "-n", ns)
		link := "/sets/" + ns + "/secret/keys"

		Expect(chromedp.Do(tab, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#sets")))).To(Succeed())
		var focused string
		for range 10 { // the site link, the filter, then the set
			Expect(chromedp.Do(tab, chromedp.KeyEvent(kb.Tab))).To(Succeed())
			if focused = run(tab, chromedp.Evaluate[string](`document.activeElement.getAttribute("href") || document.activeElement.id`)); focused == link {
				break
			}
		}
		Expect(focused).To(Equal(link), "Tab never reached the set's link")
		screenshot(tab, "keyboard-focus")

		Expect(chromedp.Do(tab, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("#members")))).To(Succeed())
		Expect(run(tab, chromedp.Location())).To(Equal(url + strings.TrimPrefix(link, "/")))
	})
})

// browser starts a headless Chromium with a fresh profile for the spec and
// returns its tab. Without a browser the spec fails where one is required (CI,
// APPLYSET_REQUIRE_BROWSER) and is skipped elsewhere, saying how to get one.
func browser(ctx context.Context) context.Context {
	GinkgoHelper()
	path := testenv.ChromiumPath()
	if path == "" {
		if os.Getenv("CI") != "" || os.Getenv("APPLYSET_REQUIRE_BROWSER") != "" {
			Fail(testenv.NoChromium)
		}
		Skip(testenv.NoChromium)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(GinkgoT().TempDir()),
		chromedp.WindowSize(1280, 800),
	)
	if os.Geteuid() == 0 { // Chromium refuses to start as root with its sandbox
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, stopBrowser := chromedp.NewExecAllocator(ctx, opts...)
	tab, closeTab := chromedp.NewContext(alloc, chromedp.WithErrorf(GinkgoWriter.Printf))
	DeferCleanup(func() { closeTab(); stopBrowser() })
	Expect(chromedp.Do(tab, chromedp.EmulateViewport(1280, 800))).To(Succeed(), "Chromium %s did not start", path)
	// Each step after the start has a deadline, so a page that never shows
	// what a spec waits for fails the spec rather than hanging it.
	step, cancel := context.WithTimeout(tab, time.Minute)
	DeferCleanup(cancel)
	return step
}

// run runs one browser action and returns its value.
func run[T any](tab context.Context, action chromedp.Action[T]) T {
	GinkgoHelper()
	v, err := chromedp.Run(tab, action)
	Expect(err).NotTo(HaveOccurred())
	return v
}

// screenshot saves the tab's viewport as bin/screenshots/<state>.png, and
// the main states into docs/images/ too when make screenshots asks.
func screenshot(tab context.Context, state string) {
	GinkgoHelper()
	png := run(tab, chromedp.CaptureScreenshot())
	root, err := controlplane.Root()
	Expect(err).NotTo(HaveOccurred())
	dirs := []string{filepath.Join(root, "bin", "screenshots")}
	if os.Getenv(docsScreenshots) != "" && (state == "sets-list" || state == "set-failing-member" || state == "plan") {
		dirs = append(dirs, filepath.Join(root, "docs", "images"))
	}
	for _, dir := range dirs {
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "ui-"+state+".png"), png, 0o644)).To(Succeed())
	}
}

func configMapManifest(name string) string {
	return `{apiVersion: v1, kind: ConfigMap, metadata: {name: ` + name + `}, data: {k: v}}` + "\n"
}

func deploymentManifest(name string) string {
	return `{apiVersion: apps/v1, kind: Deployment, metadata: {name: ` + name + `}, spec: {selector: {matchLabels: {app: ` + name + `}},
  template: {metadata: {labels: {app: ` + name + `}}, spec: {containers: [{name: web, image: nginx}]}}}}` + "\n"
}

// ownPods makes what the Deployment controller would for the Deployment
// name, which no controller rolls out here: a ReplicaSet it controls, and
// pods Pods the ReplicaSet controls.
func ownPods(ctx context.Context, ns, name string, pods int) {
	GinkgoHelper()
	deployment := &appsv1.Deployment{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, deployment)).To(Succeed())
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-1",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(deployment, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{Selector: deployment.Spec.Selector, Template: deployment.Spec.Template}}
	Expect(env.Client.Create(ctx, rs)).To(Succeed())
	for i := range pods {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-1-%d", name, i),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
			Spec: deployment.Spec.Template.Spec}
		Expect(env.Client.Create(ctx, pod)).To(Succeed())
	}
}

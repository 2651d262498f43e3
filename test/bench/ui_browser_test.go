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

package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// needChromium returns the path of Chromium. Without one the benchmark is
// skipped, or fails where one is required (APPLYSET_REQUIRE_BROWSER).
func needChromium(b *testing.B) string {
	b.Helper()
	path := testenv.ChromiumPath()
	if path == "" {
		if os.Getenv("APPLYSET_REQUIRE_BROWSER") != "" {
			b.Fatal(testenv.NoChromium)
		}
		b.Skip(testenv.NoChromium)
	}
	return path
}

// startBrowser starts Chromium at path headless with a fresh profile, as the
// browser specs of test/install do, and returns its context: each page opens
// a tab of its own from it. It stops when the benchmark ends; start it after
// the ui, so that it stops first: the ui's graceful stop waits up to 5 s for
// a connection the browser opened ahead and never used, and fails after that.
func startBrowser(b *testing.B, path string) context.Context {
	b.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(b.TempDir()),
		chromedp.WindowSize(1280, 800),
	)
	if os.Geteuid() == 0 { // Chromium refuses to start as root with its sandbox
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, stopBrowser := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancel := chromedp.NewContext(alloc)
	b.Cleanup(func() { cancel(); stopBrowser() })
	if err := chromedp.Do(browser); err != nil {
		b.Fatalf("Chromium %s did not start: %v", path, err)
	}
	return browser
}

// serveUI runs `kubectl applyset ui` in this process, as the specs do, with
// args after the verb, and returns the URL it prints; it stops, as on
// Ctrl-C, when the benchmark ends.
func serveUI(b *testing.B, args ...string) string {
	b.Helper()
	out, errOut := &testenv.SyncBuffer{}, &testenv.SyncBuffer{}
	cmd := applysetcli.NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
	cmd.SetArgs(append([]string{"--kubeconfig", env.Kubeconfig, "ui", "--yes"}, args...))
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	b.Cleanup(func() {
		stop()
		select {
		case err := <-done:
			if err != nil {
				b.Errorf("kubectl applyset ui stopped with an error: %v", err)
			}
		case <-time.After(30 * time.Second):
			b.Error("kubectl applyset ui did not stop")
		}
		if s := errOut.String(); s != "" {
			b.Logf("kubectl applyset ui said: %s", s)
		}
	})
	printed := regexp.MustCompile(`^http://127\.0\.0\.1:\d+/$`)
	var url string
	waitFor(b, 30*time.Second, func() bool {
		url, _, _ = strings.Cut(out.String(), "\n")
		return printed.MatchString(url)
	})
	return url
}

// graphDrawn runs before the page's own scripts and notes in
// window.graphDrawnAt the performance.now() at which #graph-canvas holds an
// svg. graph.js draws the whole graph in one synchronous call, and mutation
// observers are told after it returns: the time is that of the graph laid
// out and in the DOM, before the browser paints it.
const graphDrawn = `(() => {
  const seen = new MutationObserver(() => {
    if (document.querySelector("#graph-canvas svg")) {
      window.graphDrawnAt = performance.now();
      seen.disconnect();
    }
  });
  seen.observe(document, {childList: true, subtree: true});
})();`

// pageView is what the browser measured and read of one load of a set's page.
type pageView struct {
	FirstPaint, Graph float64 // ms from the navigation's start
	JSHeap, JSHeapGC  float64 // bytes used, as read and after a garbage collection
	Elements          int
	MemberCount       string   // the facts' member count
	Rows              int      // rows of the members table
	Applied           int      // of them, rows whose proof is "applied"
	Nodes             []string // the graph's node labels
}

// readPage reads the figures and what the page shows, once the graph is drawn.
const readPage = `({
  firstPaint: performance.getEntriesByName("first-contentful-paint")[0].startTime,
  graph: window.graphDrawnAt,
  elements: document.getElementsByTagName("*").length,
  memberCount: document.getElementById("member-count").textContent,
  rows: document.querySelectorAll("#members tbody tr").length,
  applied: [...document.querySelectorAll("#members tbody tr")].filter(tr => tr.children[5].textContent === "applied").length,
  nodes: [...document.querySelectorAll("#graph-canvas g.node .node-label")].map(t => t.textContent)})`

// loadPage opens url in a fresh tab of browser, waits until the graph is
// drawn and the first contentful paint is recorded, and reads the page.
func loadPage(browser context.Context, url string) (pageView, error) {
	tab, closeTab := chromedp.NewContext(browser)
	defer closeTab()
	err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 800), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: graphDrawn}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, performance.Enable, performance.EnableParams{})
		return err
	}))
	if err != nil {
		return pageView{}, fmt.Errorf("opening a tab: %w", err)
	}
	step, cancel := context.WithTimeout(tab, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(step, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#graph-canvas svg"))); err != nil {
		return pageView{}, fmt.Errorf("loading %s: %w", url, err)
	}
	if _, err := chromedp.Run(step, chromedp.Poll[bool](`window.graphDrawnAt !== undefined && `+
		`performance.getEntriesByName("first-contentful-paint").length > 0`)); err != nil {
		return pageView{}, fmt.Errorf("waiting for the first contentful paint: %w", err)
	}
	var v pageView
	if v.JSHeap, err = jsHeapUsed(step); err != nil {
		return v, err
	}
	read, err := chromedp.Run(step, chromedp.Evaluate[struct {
		FirstPaint  float64  `json:"firstPaint"`
		Graph       float64  `json:"graph"`
		Elements    int      `json:"elements"`
		MemberCount string   `json:"memberCount"`
		Rows        int      `json:"rows"`
		Applied     int      `json:"applied"`
		Nodes       []string `json:"nodes"`
	}](readPage))
	if err != nil {
		return v, fmt.Errorf("reading the page: %w", err)
	}
	v.FirstPaint, v.Graph, v.Elements = read.FirstPaint, read.Graph, read.Elements
	v.MemberCount, v.Rows, v.Applied, v.Nodes = read.MemberCount, read.Rows, read.Applied, read.Nodes
	if err := chromedp.Do(step, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, heapprofiler.CollectGarbage, cdp.Empty{})
		return err
	})); err != nil {
		return v, fmt.Errorf("collecting the page's garbage: %w", err)
	}
	v.JSHeapGC, err = jsHeapUsed(step)
	return v, err
}

// jsHeapUsed reads the tab's JSHeapUsedSize from the Performance domain.
func jsHeapUsed(tab context.Context) (float64, error) {
	metrics, err := chromedp.Run(tab, func(ctx context.Context, t *chromedp.Target) (performance.GetMetricsResult, error) {
		return cdp.Call(ctx, t, performance.GetMetrics, cdp.Empty{})
	})
	if err != nil {
		return 0, fmt.Errorf("reading the page's metrics: %w", err)
	}
	for _, m := range metrics.Metrics {
		if m.Name == "JSHeapUsedSize" {
			return m.Value, nil
		}
	}
	return 0, errors.New("the page's metrics have no JSHeapUsedSize")
}

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

package tracing

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// docsScreenshots, when set, makes the spec write the picture of its trace
// that docs/operations/history.md shows (make screenshots).
const docsScreenshots = "APPLYSET_DOCS_SCREENSHOTS"

// bar is a span drawn as a bar of a waterfall.
type bar struct {
	Label, Service string
	// Indent is in pixels, by the span's depth.
	Indent int
	// Left and Width are in percent of the trace's time; Took as read.
	Left, Width float64
	Took        string
}

// bars lays spans out as a waterfall: each under its parent, children by
// start, their offset and length in percent of the whole trace.
func bars(spans []span) []bar {
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.Start, b.Start) })
	first, last := spans[0].Start, spans[0].End
	ids := map[string]bool{}
	children := map[string][]span{}
	for _, s := range spans {
		first, last = min(first, s.Start), max(last, s.End)
		ids[s.SpanID] = true
	}
	for _, s := range spans {
		parent := s.ParentSpanID
		if !ids[parent] {
			parent = ""
		}
		children[parent] = append(children[parent], s)
	}
	total := float64(max(last-first, 1))
	var out []bar
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		for _, s := range children[parent] {
			out = append(out, bar{Label: s.Name, Service: s.Service, Indent: 2 + 10*depth,
				Left: float64(s.Start-first) / total * 100, Width: max(float64(s.End-s.Start)/total*100, 0.2),
				Took: time.Duration(s.End - s.Start).Round(10 * time.Microsecond).String()})
			walk(s.SpanID, depth+1)
		}
	}
	walk("", 0)
	return out
}

var page = template.Must(template.New("trace").Parse(`<!doctype html>
<meta charset="utf-8"><title>trace</title>
<style>
body { font: 13px system-ui, sans-serif; margin: 16px; color: #1f2328; }
h1 { font-size: 16px; margin: 0 0 4px; } p { margin: 0 0 12px; color: #59636e; }
.row { display: grid; grid-template-columns: 360px 1fr 80px; align-items: center; height: 19px; }
.name { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.lane { position: relative; height: 13px; background: #f6f8fa; }
.bar { position: absolute; height: 13px; border-radius: 2px; }
.applyset-operator { background: #0969da; } .apiserver { background: #bf8700; } .other { background: #8250df; }
.took { text-align: right; color: #59636e; font-variant-numeric: tabular-nums; }
.key span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
</style>
<h1>Reconcile ApplySet {{.Set}}: trace {{.TraceID}}</h1>
<p class="key">{{len .Bars}} spans<span class="applyset-operator"></span>applyset-operator<span class="apiserver"></span>kube-apiserver</p>
{{range .Bars}}<div class="row"><div class="name" style="padding-left: {{.Indent}}px">{{.Label}}</div>
<div class="lane"><div class="bar {{if eq .Service "applyset-operator"}}applyset-operator{{else if eq .Service "apiserver"}}apiserver{{else}}other{{end}}" style="left: {{printf "%.2f" .Left}}%; width: {{printf "%.2f" .Width}}%"></div></div>
<div class="took">{{.Took}}</div></div>
{{end}}`))

// waterfall renders spans as a waterfall page and screenshots it in
// headless Chromium into bin/screenshots/trace.png, and into docs/images/
// when make screenshots asks. Without Chromium it renders the page only.
func waterfall(ctx context.Context, spans []span) {
	GinkgoHelper()
	var html bytes.Buffer
	reconcile := spans[0]
	for _, s := range spans {
		if s.ParentSpanID == "" && s.Service == operator {
			reconcile = s
		}
	}
	Expect(page.Execute(&html, map[string]any{"Set": reconcile.Attributes["applyset.namespace"] + "/" + reconcile.Attributes["applyset.name"],
		"TraceID": reconcile.TraceID, "Bars": bars(spans)})).To(Succeed())
	root, err := controlplane.Root()
	Expect(err).NotTo(HaveOccurred())
	out := filepath.Join(root, "bin", "screenshots")
	Expect(os.MkdirAll(out, 0o755)).To(Succeed())
	file := filepath.Join(out, "trace.html")
	Expect(os.WriteFile(file, html.Bytes(), 0o644)).To(Succeed())
	path := testenv.ChromiumPath()
	if path == "" {
		Expect(os.Getenv(docsScreenshots)).To(BeEmpty(), testenv.NoChromium)
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.UserDataDir(GinkgoT().TempDir()),
		chromedp.WindowSize(1280, 800))
	if os.Geteuid() == 0 { // Chromium refuses to start as root with its sandbox
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, stopBrowser := chromedp.NewExecAllocator(ctx, opts...)
	defer stopBrowser()
	tab, closeTab := chromedp.NewContext(alloc, chromedp.WithErrorf(GinkgoWriter.Printf))
	defer closeTab()
	tab, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	Expect(chromedp.Do(tab, chromedp.EmulateViewport(1280, 800), chromedp.Navigate("file://"+file))).To(Succeed(),
		"Chromium %s did not show the page", path)
	png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(out, "trace.png"), png, 0o644)).To(Succeed())
	if os.Getenv(docsScreenshots) != "" {
		Expect(os.WriteFile(filepath.Join(root, "docs", "images", "trace.png"), png, 0o644)).To(Succeed())
	}
	fmt.Fprintf(GinkgoWriter, "The trace's waterfall: %s\n", file)
}

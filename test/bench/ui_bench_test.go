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
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// uiPageRows is how many members one page of the set's table lists.
const uiPageRows = 200

// uiGraphMembers is the most members the graph draws one box each.
const uiGraphMembers = 150

// BenchmarkUISetPage measures the page `kubectl applyset ui` serves for one
// kubectl set of each size BENCH_UI_MEMBERS names (default 100 and 5,000
// ConfigMaps). Each iteration fetches the page's HTML with a plain GET (the
// server's time, the HTML's size, and this process's heap meanwhile: the
// ui runs in it), then opens it in a fresh tab of a headless Chromium and
// reports the first contentful paint, the time the graph is drawn, the
// page's JS heap and its element count. It fails when the page does not
// show the set's members; nothing here asserts a time.
func BenchmarkUISetPage(b *testing.B) {
	chromium := needChromium(b)
	controlPlane(b)
	for _, n := range envSizes(b, "BENCH_UI_MEMBERS", []int{100, 5000}) {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			uiSetPage(b, chromium, n)
		})
	}
}

// uiQuiet is how long the ui is left idle before each page is measured: a
// set's page makes about 80 to 100 requests here (a LIST of each type the
// cluster serves, and the members' pages of 500), and the plugin's client
// allows 50 a second with bursts of 100 (internal/applysetcli/cli), so a
// page within 2 s of another waits on its client's rate limiter, about a
// second more here. The figures are those of a page opened alone.
const uiQuiet = 2 * time.Second

// uiUnits are the figures of one page, in the order measurePage returns them.
var uiUnits = []string{"ms-server", "KiB-html", "requests/page", "MiB-go-heap", "MiB-go-alloc",
	"ms-first-paint", "ms-graph", "MiB-js-heap", "MiB-js-heap-gc", "dom-nodes"}

// uiSetPage is BenchmarkUISetPage for a set of n members, in the browser
// at chromium.
func uiSetPage(b *testing.B, chromium string, n int) {
	ctx := context.Background()
	ns := namespace(ctx, b, "ui-")
	setID := kubectlParent(ctx, b, ns, "big", "ConfigMap")
	start := time.Now()
	kubectlMembers(ctx, b, ns, setID, n)
	b.Logf("%d members created in %s", n, time.Since(start).Round(10*time.Millisecond))
	b.Cleanup(func() {
		// 100,000 take the API server longer than one request may last: it
		// goes on deleting after it answers with a timeout.
		err := k8sClient.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(ns))
		switch {
		case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
			b.Logf("deleting the members goes on after the request: %v", err)
		case err != nil:
			b.Errorf("deleting the members: %v", err)
		}
	})
	url := serveUI(b, "-n", ns) + "sets/" + ns + "/secret/big"
	browser := startBrowser(b, chromium)
	// The first page after the ui starts also discovers the API, and the
	// first in the browser may start its renderer: the iterations measure
	// the pages after it.
	first := measurePage(b, browser, url, n)
	b.Logf("the first page after the ui started: server %.0f ms, first contentful paint %.0f ms, graph %.0f ms",
		first[0], first[5], first[6])

	m := make([]float64, len(uiUnits))
	for b.Loop() {
		for i, v := range measurePage(b, browser, url, n) {
			m[i] += v
		}
	}
	for i, unit := range uiUnits {
		m[i] /= float64(b.N)
		b.ReportMetric(m[i], unit)
	}
	b.Logf("| members | server (HTML, requests) | Go heap peak (allocated) | first contentful paint | graph drawn | JS heap (after a GC) | elements |")
	b.Logf("| %s | %.0f ms (%.0f KiB, %.0f) | %.1f MiB (%.1f MiB) | %.0f ms | %.0f ms | %.1f MiB (%.1f MiB) | %.0f |",
		thousands(n), m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9])
}

// measurePage GETs the set's page at url, then opens it in a fresh tab,
// each after uiQuiet, checks that it shows the n members and returns its
// figures in the order of uiUnits.
func measurePage(b *testing.B, browser context.Context, url string, n int) []float64 {
	b.Helper()
	ctx := context.Background()
	time.Sleep(uiQuiet)
	before := requestsByResource(ctx, b)
	got := getPage(b, url)
	requests := sum(diffCounts(before, requestsByResource(ctx, b), nil))
	time.Sleep(uiQuiet)
	view, err := loadPage(browser, url)
	if err != nil {
		b.Fatal(err)
	}
	checkPage(b, view, n)
	return []float64{ms(got.elapsed), float64(got.size) / 1024, requests, mib(got.heapPeak), mib(got.allocated),
		view.FirstPaint, view.Graph, mib(view.JSHeap), mib(view.JSHeapGC), float64(view.Elements)}
}

// kubectlMembers makes n ConfigMaps in ns members of setID as kubectl's
// apply does: server-side apply by the field manager kubectl, with the
// set's part-of label, 16 at a time.
func kubectlMembers(ctx context.Context, b *testing.B, ns, setID string, n int) {
	b.Helper()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i := range n {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": ns, "name": fmt.Sprintf("cm-%d", i),
				"labels": map[string]any{applyset.PartOfLabel: setID}},
			"data": map[string]any{"k": "v"}}}
		g.Go(func() error {
			return k8sClient.Apply(gctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(identity.KubectlFieldManager))
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
}

// checkPage fails the benchmark unless the page shows the set's n members:
// the count, a full first page of the table, each proven by kubectl's apply,
// and the graph's boxes counting them all.
func checkPage(b *testing.B, v pageView, n int) {
	b.Helper()
	if v.MemberCount != strconv.Itoa(n) {
		b.Fatalf("the page counts %q members, want %d", v.MemberCount, n)
	}
	if want := min(n, uiPageRows); v.Rows != want || v.Applied != want {
		b.Fatalf("the table's first page has %d rows, %d of them applied; want %d applied", v.Rows, v.Applied, want)
	}
	if n > uiGraphMembers {
		// One box for the page's members, judged, one for the rest, counted.
		counted := 0
		for _, label := range v.Nodes {
			var c int
			if _, err := fmt.Sscanf(label, "%d × ConfigMap", &c); err == nil {
				counted += c
			}
		}
		if counted != n {
			b.Fatalf("the graph's boxes count %d ConfigMaps, want %d: %q", counted, n, v.Nodes)
		}
	} else if len(v.Nodes) != n {
		b.Fatalf("the graph has %d nodes, want one a member, %d", len(v.Nodes), n)
	}
}

// servedPage is one GET of a page, and this process's heap while it was served.
type servedPage struct {
	elapsed   time.Duration
	size      int64
	heapPeak  uint64 // the peak of the heap above the live heap before, garbage included
	allocated uint64 // bytes allocated
}

// getPage GETs url and reads its body. The heap is that of this whole
// process, the client's few reads included; nothing else in it runs meanwhile.
func getPage(b *testing.B, url string) servedPage {
	b.Helper()
	var s servedPage
	var err error
	s.heapPeak, s.allocated = heapWhile(func() {
		start := time.Now()
		var resp *http.Response
		if resp, err = http.Get(url); err != nil {
			return
		}
		defer func() { _ = resp.Body.Close() }()
		if resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET %s: %s", url, resp.Status)
			return
		}
		s.size, err = io.Copy(io.Discard, resp.Body)
		s.elapsed = time.Since(start)
	})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// heapWhile runs f and returns the peak of this process's heap objects (live
// and not yet collected) above the live heap before f, sampled every 5 ms and
// once f returns, and the bytes allocated while f ran.
func heapWhile(f func()) (peak, allocated uint64) {
	base := liveHeap()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	highest := uint64(0)
	read := func() {
		metrics.Read(sample)
		highest = max(highest, sample[0].Value.Uint64())
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		ticker := time.NewTicker(5 * time.Millisecond)
		defer ticker.Stop()
		for {
			read()
			select {
			case <-done:
				return
			case <-ticker.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	read()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return max(highest, base) - base, after.TotalAlloc - before.TotalAlloc
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mib[T uint64 | float64](v T) float64 { return float64(v) / (1 << 20) }

// thousands writes n with commas, as the docs do: 5,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var out strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out.WriteByte(',')
		}
		out.WriteRune(c)
	}
	return out.String()
}

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
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/ociartifact"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// besideFluxRuns counts the runs of BenchmarkScaleBesideFlux in this
// process (-count runs each size again), so that the operator and Flux
// take turns at going first; BENCH_RUN numbers the process's run where
// make bench runs each in a process of its own.
var besideFluxRuns int

// BenchmarkScaleBesideFlux runs the operator and Flux side by side on one
// control plane: Flux's source-controller and kustomize-controller v1.9.6,
// built from their modules (test/peers/flux) and run as Flux ships them.
// For each size of BENCH_FLUX_SETS (default 200), each tool gets that many
// namespaces, each with one set of Flux's benchmark shape (a Deployment,
// Service, ConfigMap and ServiceAccount) read from one OCI artifact in
// Flux's format, with a kustomization.yaml, on a loopback registry: for the
// operator an ApplySet with an oci source, for Flux an OCIRepository and a
// Kustomization. It reports each tool's time from the first creation until
// all are Ready, the operator's as a share of Flux's, the API requests a
// set of each and the CPU of each. The two take turns at going first, run
// after run (-count); each waits until the other is quiet.
func BenchmarkScaleBesideFlux(b *testing.B) {
	controlPlane(b)
	flux := startFluxControllers(b)
	host, stop := testenv.Registry(nil)
	b.Cleanup(stop)
	policy, err := fetchpolicy.Parse([]string{"http://127.0.0.1"})
	if err != nil {
		b.Fatal(err)
	}
	url := pushFluxShape(b, host, policy)
	// The build cache of cmd/manager's default size (--build-cache-size).
	runSetOperator(b, applysets.Options{ArtifactPolicy: policy, BuildCache: 64 << 20,
		Concurrency: envCount("BENCH_SET_CONCURRENCY", 0)})
	for _, sets := range envSizes(b, "BENCH_FLUX_SETS", []int{200}) {
		b.Run(fmt.Sprintf("sets=%d", sets), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				besideFluxRuns++
				besideFlux(b, flux, url, sets, (besideFluxRuns+max(envCount("BENCH_RUN", 1)-1, 0))%2 == 1)
				b.StartTimer()
			}
		})
	}
}

// besideFlux is one run of BenchmarkScaleBesideFlux with sets sets each.
func besideFlux(b *testing.B, flux *fluxControllers, url string, sets int, operatorFirst bool) {
	ctx := context.Background()
	turns := []func() toolRun{
		func() toolRun {
			before := stepSums(b)
			r := runTool(ctx, b, "operator", sets, operatorSet(url), applySetKind, cpuOfThisProcess)
			b.Logf("the operator's requests per set, step by step (seconds summed over all sets): %s",
				stepTrace(before, stepSums(b), sets))
			return r
		},
		func() toolRun { return runTool(ctx, b, "flux", sets, fluxSet(url), kustomizationKind, flux.cpu) },
	}
	if !operatorFirst {
		turns[0], turns[1] = turns[1], turns[0]
	}
	var op, fx toolRun
	for _, turn := range turns {
		waitIdle(b)
		waitAPIQuiet(ctx, b)
		if r := turn(); r.tool == "operator" {
			op = r
		} else {
			fx = r
		}
	}
	order := "Flux first"
	if operatorFirst {
		order = "the operator first"
	}
	b.Logf("%d sets of 4 objects, one namespace each, from one OCI artifact with a kustomization (%s): "+
		"the operator all Ready after %s, Flux after %s (%.2f of Flux's time)", sets, order,
		op.all.Round(10*time.Millisecond), fx.all.Round(10*time.Millisecond), op.all.Seconds()/fx.all.Seconds())
	for _, r := range []toolRun{op, fx} {
		b.Logf("%s: requests per set %s (%.1f in all); CPU: API server %.1f s, etcd %.1f s, its own process %.1f s",
			r.tool, perSet(r.requests, sets), sum(r.requests)/float64(sets),
			r.cpu.APIServer.Seconds(), r.cpu.Etcd.Seconds(), r.own.Seconds())
		b.ReportMetric(r.all.Seconds(), r.tool+"-s")
		b.ReportMetric(sum(r.requests)/float64(sets), r.tool+"-requests/set")
		b.ReportMetric(r.cpu.APIServer.Seconds(), r.tool+"-apiserver-cpu-s")
		b.ReportMetric(r.own.Seconds(), r.tool+"-cpu-s")
	}
	b.ReportMetric(op.all.Seconds()/fx.all.Seconds(), "of-flux")
}

// toolRun is what one tool's turn measured.
type toolRun struct {
	tool     string
	all      time.Duration      // from the first creation until all Ready
	requests map[string]float64 // every client's requests meanwhile
	cpu      testenv.CPU        // the control plane's CPU meanwhile
	own      time.Duration      // the tool's own processes' CPU meanwhile
}

// runTool creates sets namespaces with objectsOf(namespace) in each, 32 at
// a time, and waits until every object of kind ready in them is Ready.
func runTool(ctx context.Context, b *testing.B, tool string, sets int, objectsOf func(ns string) []*unstructured.Unstructured,
	ready schema.GroupVersionKind, ownCPU func(context.Context, *testing.B) time.Duration) toolRun {
	b.Helper()
	run := fmt.Sprintf("%s-%d", tool, time.Now().UnixNano())
	namespaces := make([]string, sets)
	for i := range namespaces {
		namespaces[i] = namespace(ctx, b, "beside-flux-")
	}
	before, cpuBefore, ownBefore := requestsByResource(ctx, b), readCPU(ctx, b), ownCPU(ctx, b)
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for _, ns := range namespaces {
		for _, obj := range objectsOf(ns) {
			obj.SetLabels(map[string]string{besideFluxLabel: run})
			g.Go(func() error { return k8sClient.Create(gctx, obj) })
		}
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	waitLabelledReady(ctx, b, ready, run, sets)
	r := toolRun{tool: tool, all: time.Since(start), cpu: readCPU(ctx, b).Sub(cpuBefore), own: ownCPU(ctx, b) - ownBefore}
	// The creations are the benchmark's, as a person's would be.
	created := map[string]float64{}
	for _, obj := range objectsOf("") {
		created["POST "+resourceOf(obj.GetKind())] += float64(sets)
	}
	r.requests = diffCounts(before, requestsByResource(ctx, b), created)
	return r
}

// cpuOfThisProcess is the CPU of the benchmark's process, which runs the operator.
func cpuOfThisProcess(ctx context.Context, b *testing.B) time.Duration {
	return readCPU(ctx, b).Self
}

// besideFluxLabel marks the objects of one tool's turn.
const besideFluxLabel = "bench.applyset.dev/beside-flux"

var (
	applySetKind      = schema.GroupVersionKind{Group: "apply.applyset.dev", Version: "v1alpha1", Kind: "ApplySet"}
	kustomizationKind = schema.GroupVersionKind{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"}
)

// operatorSet is an ApplySet reading the artifact at url, tag v1.
func operatorSet(url string) func(ns string) []*unstructured.Unstructured {
	return func(ns string) []*unstructured.Unstructured {
		return []*unstructured.Unstructured{object(applySetKind, ns, map[string]any{
			"wait":    false,
			"sources": []any{map[string]any{"oci": map[string]any{"url": url, "tag": "v1", "insecure": true}}},
		})}
	}
}

// fluxSet is an OCIRepository of the artifact at url, tag v1, and the
// Kustomization that applies it into its namespace, pruning, not waiting.
func fluxSet(url string) func(ns string) []*unstructured.Unstructured {
	return func(ns string) []*unstructured.Unstructured {
		repo := object(schema.GroupVersionKind{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "OCIRepository"}, ns,
			map[string]any{"url": url, "ref": map[string]any{"tag": "v1"}, "insecure": true, "interval": "1h"})
		ks := object(kustomizationKind, ns, map[string]any{
			"interval": "1h", "path": "./", "prune": true, "wait": false, "targetNamespace": ns,
			"sourceRef": map[string]any{"kind": "OCIRepository", "name": "app"},
		})
		return []*unstructured.Unstructured{repo, ks}
	}
}

func object(gvk schema.GroupVersionKind, ns string, spec map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	obj.SetGroupVersionKind(gvk)
	obj.SetNamespace(ns)
	obj.SetName("app")
	return obj
}

// pushFluxShape pushes the four objects of a set of Flux's benchmark shape,
// with a kustomization.yaml naming them, to host as an artifact in Flux's
// format, and returns its repository's URL.
func pushFluxShape(b *testing.B, host string, policy *fetchpolicy.Policy) string {
	b.Helper()
	var manifests []byte
	for _, o := range fluxShapeObjects("app") {
		doc, err := yaml.Marshal(o)
		if err != nil {
			b.Fatal(err)
		}
		manifests = append(append(manifests, "---\n"...), doc...)
	}
	files, err := artifact.NewTree(map[string][]byte{
		"app.yaml":           manifests,
		"kustomization.yaml": []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [app.yaml]\n"),
	})
	if err != nil {
		b.Fatal(err)
	}
	url := "oci://" + host + "/bench/app"
	if _, err := ociartifact.Push(context.Background(), files, url, "v1", ociartifact.Metadata{},
		ociartifact.Options{Policy: policy, Insecure: true}); err != nil {
		b.Fatal(err)
	}
	return url
}

// resourceOf is the resource of the benchmark's kinds, as
// apiserver_request_total names it.
func resourceOf(kind string) string {
	return map[string]string{"ApplySet": "applysets", "OCIRepository": "ocirepositories",
		"Kustomization": "kustomizations"}[kind]
}

// waitAPIQuiet waits until the API server serves no more than a few
// requests a second (this benchmark's own metrics reads among them): the
// tool that went before has settled, whatever its follow-ups.
func waitAPIQuiet(ctx context.Context, b *testing.B) {
	b.Helper()
	const most = 5
	last := sum(requestsByResource(ctx, b))
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		now := sum(requestsByResource(ctx, b))
		if now-last <= most {
			return
		}
		last = now
	}
	b.Fatal("the API server was still busy after 5 minutes")
}

// waitLabelledReady watches the objects of gvk labelled besideFluxLabel=run
// in every namespace until n of them are Ready at their generation.
func waitLabelledReady(ctx context.Context, b *testing.B, gvk schema.GroupVersionKind, run string, n int) {
	b.Helper()
	ready, waiting := map[string]bool{}, map[string]string{}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	watchUntil(ctx, b, list, []client.ListOption{client.MatchingLabels{besideFluxLabel: run}}, func(o runtime.Object) bool {
		obj, ok := o.(*unstructured.Unstructured)
		if !ok {
			b.Fatalf("watching %ss: %v", gvk.Kind, o)
		}
		key := obj.GetNamespace() + "/" + obj.GetName()
		if ready[key] {
			return false
		}
		if !conditionTrue(obj, "Ready") {
			conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
			waiting[key] = fmt.Sprintf("%s: %v", key, conditions)
			return false
		}
		ready[key] = true
		delete(waiting, key)
		return len(ready) == n
	}, func() string {
		return fmt.Sprintf("%d of %d %ss Ready; one waiting: %v", len(ready), n, gvk.Kind, firstValue(waiting))
	})
}

// conditionTrue says whether obj's condition of type is True for its
// current generation.
func conditionTrue(obj *unstructured.Unstructured, conditionType string) bool {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != conditionType {
			continue
		}
		generation, _ := m["observedGeneration"].(int64)
		return m["status"] == "True" && generation == obj.GetGeneration()
	}
	return false
}

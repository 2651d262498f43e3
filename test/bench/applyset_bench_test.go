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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// requestCounts reads apiserver_request_total from the API server, by verb.
func requestCounts(ctx context.Context, b *testing.B) map[string]float64 {
	b.Helper()
	totals, err := testenv.RequestTotals(ctx, cp.Config)
	if err != nil {
		b.Fatal(err)
	}
	counts := testenv.SumBy(totals, "verb")
	// The API server counts a WATCH when it ends, in whichever window that
	// falls: the figures leave them out, and count the requests that do work.
	delete(counts, "WATCH")
	return counts
}

func diffCounts(before, after map[string]float64, skip map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for verb, v := range after {
		if d := v - before[verb] - skip[verb]; d > 0 {
			out[verb] = d
		}
	}
	return out
}

func writes(counts map[string]float64) float64 {
	return counts["POST"] + counts["PUT"] + counts["PATCH"] + counts["APPLY"] + counts["DELETE"]
}

// manifests writes n objects over the ten load kinds, the first changed ones
// with another value, leaving out the last removed ones.
func manifests(ctx context.Context, b *testing.B, n, changed, removed int) []map[string]any {
	kinds := tenKinds(ctx, b)
	objs := make([]map[string]any, 0, n-removed)
	for i := range n - removed {
		value := "v1"
		if i < changed {
			value = "v2"
		}
		objs = append(objs, map[string]any{
			"apiVersion": "bench.example.com/v1", "kind": kinds[i%len(kinds)],
			"metadata": map[string]any{"name": fmt.Sprintf("obj-%d", i)},
			"spec":     map[string]any{"value": value},
		})
	}
	return objs
}

func toYAML(objs []map[string]any, namespace string) string {
	var b strings.Builder
	for _, o := range objs {
		md := o["metadata"].(map[string]any)
		fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\nmetadata: {name: %s, namespace: %s}\nspec: {value: %s}\n---\n",
			o["apiVersion"], o["kind"], md["name"], namespace, o["spec"].(map[string]any)["value"])
	}
	return b.String()
}

// BenchmarkApplySetVersusKubectl applies 1,000 objects over 10 kinds once with
// the operator (ApplySet created until Ready), once with kubectl apply
// --server-side --prune --applyset and once with Flux's engine as
// kustomize-controller runs it (test/peers), and reports wall time and API
// requests, and the CPU time of the API server, etcd and each tool. Two
// floors frame it: the same objects applied with no tool in between, from an
// admin client and as the ServiceAccount a set acts as. Then it measures a
// no-op re-reconcile, a change of 10% plus a removal of 10% of the objects,
// and a prune of all but one, with each tool.
func BenchmarkApplySetVersusKubectl(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	startSetOperator(b)
	const n = 1000

	tenKinds(ctx, b) // the CRDs exist before any clock starts
	// Warm up: the operator's caches and type discovery for the ten kinds, as a
	// running operator has them.
	warm := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace(ctx, b, "warm-"), Name: "warm"}}
	warm.Spec.Resources = resources(b, manifests(ctx, b, 10, 0, 0))
	if err := k8sClient.Create(ctx, warm); err != nil {
		b.Fatal(err)
	}
	waitReady(ctx, b, warm)
	// Figures are summed over the iterations and reported as means.
	totals := map[string]float64{}
	report := func(value float64, unit string) { totals[unit] += value }
	for b.Loop() {
		b.StopTimer()
		opNS, kubectlNS := namespace(ctx, b, "op-"), namespace(ctx, b, "kubectl-")

		before, cpuBefore := requestCounts(ctx, b), readCPU(ctx, b)
		profiled := profileAPIServer(ctx, b)
		start := time.Now()
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: opNS, Name: "load"}}
		set.Spec.Resources = resources(b, manifests(ctx, b, n, 0, 0))
		if err := k8sClient.Create(ctx, set); err != nil {
			b.Fatal(err)
		}
		waitReady(ctx, b, set)
		opTime := time.Since(start)
		opRequests := diffCounts(before, requestCounts(ctx, b), nil)
		opCPU := readCPU(ctx, b).Sub(cpuBefore)
		profiled()
		report(opCPU.Self.Seconds(), "operator-cpu-s")
		report(opCPU.APIServer.Seconds(), "apiserver-cpu-s")
		report(opCPU.Etcd.Seconds(), "etcd-cpu-s")

		file := writeFile(b, "load.yaml", toYAML(manifests(ctx, b, n, 0, 0), kubectlNS))
		before, cpuBefore = requestCounts(ctx, b), readCPU(ctx, b)
		start = time.Now()
		runKubectl(ctx, b, "apply", "--server-side", "--prune", "--applyset=load", "-n", kubectlNS, "-f", file)
		kubectlTime := time.Since(start)
		kubectlRequests := diffCounts(before, requestCounts(ctx, b), nil)
		kubectlCPU := readCPU(ctx, b).Sub(cpuBefore)

		fluxNS := namespace(ctx, b, "flux-")
		fluxFile := writeFile(b, "flux.yaml", toYAML(manifests(ctx, b, n, 0, 0), fluxNS))
		inventory := filepath.Join(b.TempDir(), "inventory.json")
		before, cpuBefore = requestCounts(ctx, b), readCPU(ctx, b)
		start = time.Now()
		runFlux(ctx, b, fluxFile, fluxNS, inventory)
		fluxTime := time.Since(start)
		fluxRequests := diffCounts(before, requestCounts(ctx, b), nil)
		fluxCPU := readCPU(ctx, b).Sub(cpuBefore)

		floorNS, cpuBefore := namespace(ctx, b, "floor-"), readCPU(ctx, b)
		floorTime := applyFloor(ctx, b, k8sClient, floorInFlight, manifests(ctx, b, n, 0, 0), floorNS)
		floorCPU := readCPU(ctx, b).Sub(cpuBefore)
		// The same as the namespace's default ServiceAccount, as many in flight
		// as the operator: the least the operator can need, since it acts as
		// the set's identity.
		identityNS := namespace(ctx, b, "identity-floor-")
		cpuBefore = readCPU(ctx, b)
		identityTime := applyFloor(ctx, b, impersonating(b, identityNS), apply.DefaultConcurrency,
			manifests(ctx, b, n, 0, 0), identityNS)
		identityCPU := readCPU(ctx, b).Sub(cpuBefore)
		report(identityTime.Seconds(), "identity-floor-s")
		b.Logf("CPU of the first apply: operator %s; kubectl %s; Flux's engine %s; no tool %s; no tool as the ServiceAccount %s",
			opCPU, kubectlCPU, fluxCPU, floorCPU, identityCPU)
		b.Logf("1,000 objects applied %d at a time as the ServiceAccount, no tool: %s", apply.DefaultConcurrency, identityTime)
		report(floorTime.Seconds(), "floor-s")
		report(opTime.Seconds()/floorTime.Seconds(), "floor-ratio")
		report(kubectlTime.Seconds()/floorTime.Seconds(), "kubectl-floor-ratio")
		b.Logf("1,000 objects applied %d at a time, no tool: %s", floorInFlight, floorTime)

		report(fluxTime.Seconds(), "flux-s")
		report(opTime.Seconds()/fluxTime.Seconds(), "flux-ratio")
		report(sum(fluxRequests), "flux-requests")
		b.Logf("1,000 objects with Flux's engine: %s %v", fluxTime, fluxRequests)
		report(opTime.Seconds(), "operator-s")
		report(kubectlTime.Seconds(), "kubectl-s")
		report(opTime.Seconds()/kubectlTime.Seconds(), "time-ratio")
		report(sum(opRequests), "operator-requests")
		report(sum(kubectlRequests), "kubectl-requests")
		b.Logf("1,000 objects: operator %s %v; kubectl %s %v", opTime, opRequests, kubectlTime, kubectlRequests)

		// No-op reconciles: nothing declared changed. The first records the new
		// plan (all unchanged) in status; the second has nothing to write at all.
		for i := range 2 {
			before = requestCounts(ctx, b)
			retrigger(ctx, b, set, nil)
			noop := diffCounts(before, requestCounts(ctx, b), map[string]float64{"GET": 1, "PUT": 1})
			report(writes(noop), fmt.Sprintf("noop%d-writes", i+1))
			b.Logf("no-op reconcile %d: %v", i+1, noop)
		}

		// measure runs one tool's step and reports its time and requests; the
		// requests to skip are the benchmark's own.
		measure := func(name, what string, skip map[string]float64, run func()) {
			before := requestCounts(ctx, b)
			start := time.Now()
			run()
			elapsed, requests := time.Since(start), diffCounts(before, requestCounts(ctx, b), skip)
			report(elapsed.Seconds(), name+"-s")
			report(sum(requests), name+"-requests")
			b.Logf("%s: %s %v", what, elapsed, requests)
		}
		retriggered := map[string]float64{"GET": 1, "PUT": 1}

		changed := manifests(ctx, b, n, n/10, n/10)
		measure("change", "10% changed, 10% removed", retriggered, func() { retrigger(ctx, b, set, resources(b, changed)) })
		measure("kubectl-change", "10% changed, 10% removed with kubectl", nil, func() {
			runKubectl(ctx, b, "apply", "--server-side", "--prune", "--applyset=load", "-n", kubectlNS, "-f",
				writeFile(b, "change.yaml", toYAML(changed, kubectlNS)))
		})
		measure("flux-change", "10% changed, 10% removed with Flux's engine", nil, func() {
			runFlux(ctx, b, writeFile(b, "flux-change.yaml", toYAML(changed, fluxNS)), fluxNS, inventory)
		})

		// A prune of the 899 objects left but one: one stays declared, as
		// kubectl refuses to apply nothing.
		pruneAll := manifests(ctx, b, n, 1, n-1)
		measure("prune", "prune of 899", retriggered, func() { retrigger(ctx, b, set, resources(b, pruneAll)) })
		measure("kubectl-prune", "prune of 899 with kubectl", nil, func() {
			runKubectl(ctx, b, "apply", "--server-side", "--prune", "--applyset=load", "-n", kubectlNS, "-f",
				writeFile(b, "prune.yaml", toYAML(pruneAll, kubectlNS)))
		})
		measure("flux-prune", "prune of 899 with Flux's engine", nil, func() {
			runFlux(ctx, b, writeFile(b, "flux-prune.yaml", toYAML(pruneAll, fluxNS)), fluxNS, inventory)
		})
		b.StartTimer()
	}
	for unit, total := range totals {
		b.ReportMetric(total/float64(b.N), unit)
	}
}

// floorInFlight is how many applies the floor keeps in flight: enough that the
// API server, not the client, is what limits it.
const floorInFlight = 64

// applyFloor applies objs into namespace with server-side apply straight from
// c, inFlight at a time, and returns how long it took: with an admin client
// and floorInFlight, the least one API server needs to take these objects,
// whatever the tool.
func applyFloor(ctx context.Context, b *testing.B, c client.Client, inFlight int, objs []map[string]any, namespace string) time.Duration {
	b.Helper()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(inFlight)
	start := time.Now()
	for _, o := range objs {
		obj := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(o)}
		obj.SetNamespace(namespace)
		g.Go(func() error {
			return c.Apply(gctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("bench-floor"))
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

func sum(counts map[string]float64) float64 {
	total := 0.0
	for _, v := range counts {
		total += v
	}
	return total
}

func resources(b *testing.B, objs []map[string]any) []applyv1alpha1.Resource {
	out := make([]applyv1alpha1.Resource, 0, len(objs))
	for _, o := range objs {
		r, err := applyv1alpha1.NewResource(o)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// waitReady waits until the set is Ready at its generation.
func waitReady(ctx context.Context, b *testing.B, set *applyv1alpha1.ApplySet) {
	b.Helper()
	waitSetReady(ctx, b, set, 5*time.Minute)
}

// retrigger makes the operator reconcile the set again, with new resources if
// given, and waits until the reconcile finished. Its own requests are one GET
// and one PUT.
func retrigger(ctx context.Context, b *testing.B, set *applyv1alpha1.ApplySet, newResources []applyv1alpha1.Resource) {
	reconciles := reconcileCount(b)
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
		b.Fatal(err)
	}
	if newResources != nil {
		set.Spec.Resources = newResources
	} else {
		if set.Annotations == nil {
			set.Annotations = map[string]string{}
		}
		set.Annotations["bench/retrigger"] = time.Now().String()
	}
	// The operator is idle here (the last reconcile ended), so this update does
	// not race with its writes.
	if err := k8sClient.Update(ctx, set); err != nil {
		b.Fatal(err)
	}
	err := watchSet(ctx, set, 5*time.Minute, func() bool {
		c := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		// A no-op reconcile writes nothing; its end shows in the controller's own count.
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == set.Generation &&
			reconcileCount(b) > reconciles
	})
	if err != nil {
		b.Fatal(err)
	}
}

// reconcileCount reads how many reconciles of ApplySets have succeeded, from
// the controller's metrics in this process.
func reconcileCount(b *testing.B) float64 {
	n, err := testenv.Reconciles("applyset")
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func runKubectl(ctx context.Context, b *testing.B, args ...string) {
	if out, err := env.Kubectl(ctx, "", args...); err != nil {
		b.Fatalf("kubectl %v: %v\n%s", args, err, out)
	}
}

func startSetOperator(b *testing.B) {
	if n := envCount("BENCH_REPLICAS", 0); n > 0 {
		startReplicas(b, n)
		return
	}
	runSetOperator(b, applysets.Options{Concurrency: envCount("BENCH_SET_CONCURRENCY", 0)})
}

// runSetOperator runs the set reconcilers with opts, as cmd/manager sets
// them up (its client rates and cache), for the rest of the benchmark, and
// waits until they have made a set Ready.
func runSetOperator(b *testing.B, opts applysets.Options) {
	opts.ToolingVersion, opts.DefaultServiceAccount = "v0.1.0", "default"
	stop, err := env.RunManagerAs(operatorConfig(), func(o *ctrl.Options) {
		applysets.CacheOptions(&o.Cache)
		withoutFloorSets(&o.Cache)
	}, func(mgr ctrl.Manager) error {
		return applysets.SetupWithManager(mgr, opts)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := stop(); err != nil {
			b.Errorf("the operator stopped with an error: %v", err)
		}
	})
	warmUp(b)
}

// operatorConfig is the control plane's config with the client rates
// cmd/manager's defaults give (--kube-api-qps=-1 --kube-api-burst=100): no
// client-side limit, the API server's Priority and Fairness decides.
// envtest's own, 1,000 requests a second, would cap a large set's apply.
func operatorConfig() *rest.Config {
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS, cfg.Burst = -1, 100
	return cfg
}

// warmUp waits until the operator has started, made a set Ready and
// reconciled every set it found, so that its start (caches filling, the
// resync of earlier runs' sets) is not counted as the first sets' time.
func warmUp(b *testing.B) {
	b.Helper()
	ctx := context.Background()
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace(ctx, b, "warm-up-"), Name: "warm-up"}}
	set.Spec.Resources = resources(b, everydayObjects(1))
	if err := k8sClient.Create(ctx, set); err != nil {
		b.Fatal(err)
	}
	waitSetReady(ctx, b, set, time.Minute)
	waitIdle(b)
}

// impersonating returns an admin client that acts as the default
// ServiceAccount of namespace, with no client-side rate limit, as the
// operator's clients for a set.
func impersonating(b *testing.B, namespace string) client.Client {
	b.Helper()
	return impersonatingOn(b, cp, namespace, "default")
}

// impersonatingOn is impersonating on the control plane on.
func impersonatingOn(b *testing.B, on *testenv.Env, namespace, name string) client.Client {
	b.Helper()
	cfg := rest.CopyConfig(on.Config)
	cfg.QPS, cfg.Burst = -1, 0
	cfg.Impersonate = rest.ImpersonationConfig{UserName: serviceaccount.MakeUsername(namespace, name)}
	c, err := client.New(cfg, client.Options{Scheme: on.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// profileAPIServer, when BENCH_APISERVER_PROFILE names a file, records a CPU
// profile of the API server from now for BENCH_APISERVER_PROFILE_SECONDS
// (default 4) into it; the returned function waits for it.
func profileAPIServer(ctx context.Context, b *testing.B) (wait func()) {
	path := os.Getenv("BENCH_APISERVER_PROFILE")
	if path == "" {
		return func() {}
	}
	seconds := envCount("BENCH_APISERVER_PROFILE_SECONDS", 4)
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		data, err := cs.RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(seconds)).Timeout(time.Duration(seconds+30) * time.Second).DoRaw(ctx)
		if err == nil {
			err = os.WriteFile(path, data, 0o600)
		}
		done <- err
	}()
	return func() {
		if err := <-done; err != nil {
			b.Errorf("profiling the API server: %v", err)
		}
		b.Logf("API server CPU profile in %s: go tool pprof -top %s", path, path)
	}
}

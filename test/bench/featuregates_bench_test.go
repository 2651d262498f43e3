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
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// BenchmarkCreatesWithGate measures custom resource creates per second on
// three CRDs of the same control plane: one with no gate, one whose disabled
// gate the operator's webhook enforces, and one whose same gate admission
// policies enforce. Both gated kinds drop a field of every create; the
// backends are also measured on creates without that field, which their
// match conditions keep away from the mutations and the webhook. The
// policies are compiled as the policy backend compiles them and written by the
// benchmark, since one operator runs one backend.
func BenchmarkCreatesWithGate(b *testing.B) {
	controlPlane(b)
	ctx := context.Background()
	stop, err := cp.RunManager(func(mgr ctrl.Manager) error {
		return featuregates.SetupWebhook(mgr, mgr.GetWebhookServer(), &featuregates.Registrar{Client: mgr.GetClient(),
			Reader: mgr.GetAPIReader(), Endpoint: webhooks.Endpoint{URL: cp.WebhookURL(), CABundle: cp.WebhookCA()}})
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := stop(); err != nil {
			b.Errorf("the operator stopped with an error: %v", err)
		}
	})

	kinds := []string{"Plain", "Gated", "Policed"}
	for _, kind := range kinds {
		createKind(ctx, b, kind)
	}
	gate := featuresv1alpha1.FeatureGate{Name: "Extra", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.extra"}}
	gates := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "gateds.bench.example.com"}}
	gates.Spec.FeatureGates = []featuresv1alpha1.FeatureGate{gate}
	if err := k8sClient.Create(ctx, gates); err != nil {
		b.Fatal(err)
	}
	applyPolicies(ctx, b, gate)
	ns := namespace(ctx, b, "gates-")
	for _, kind := range kinds[1:] {
		waitFor(b, 30*time.Second, func() bool {
			probe := gadget(kind, ns, "probe")
			return k8sClient.Create(ctx, probe, client.DryRunAll) == nil && !hasExtra(probe)
		})
	}

	// Each gated kind drops .spec.extra from every create; the last scenario
	// creates objects without it, as most are.
	scenarios := []string{"Plain", "Gated", "Policed", "Plain/unset", "Gated/unset", "Policed/unset"}
	const n, workers = 1000, 4
	totals := map[string]float64{}
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		rate, cpuPerCreate := map[string]float64{}, map[string]float64{}
		// Rotate which scenario goes first, so none gets a warmer server.
		for i := range scenarios {
			scenario := scenarios[(i+round)%len(scenarios)]
			kind := strings.TrimSuffix(scenario, "/unset")
			cpuBefore := readCPU(ctx, b)
			start := time.Now()
			g, gctx := errgroup.WithContext(ctx)
			g.SetLimit(workers)
			for i := range n {
				g.Go(func() error {
					obj := gadget(kind, ns, fmt.Sprintf("%s-%d-%d", strings.ToLower(strings.ReplaceAll(scenario, "/", "-")), round, i))
					if scenario != kind {
						unstructured.RemoveNestedField(obj.Object, "spec", "extra")
					}
					if err := k8sClient.Create(gctx, obj); err != nil {
						return err
					}
					if kind != "Plain" && hasExtra(obj) {
						return fmt.Errorf("%s kept .spec.extra: the gate did not act", obj.GetName())
					}
					return nil
				})
			}
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
			rate[scenario] = n / time.Since(start).Seconds()
			used := readCPU(ctx, b).Sub(cpuBefore)
			// The webhook serves from this process, so its CPU counts with the API server's.
			cpuPerCreate[scenario] = float64((used.APIServer + used.Self).Microseconds()) / n
		}
		totals["ungated-creates/s"] += rate["Plain"]
		totals["webhook-creates/s"] += rate["Gated"]
		totals["policy-creates/s"] += rate["Policed"]
		totals["webhook/ungated"] += rate["Gated"] / rate["Plain"]
		totals["policy/ungated"] += rate["Policed"] / rate["Plain"]
		totals["webhook-unset-creates/s"] += rate["Gated/unset"]
		// Objects without the field are smaller: compare them with ungated ones without it.
		totals["ungated-unset-creates/s"] += rate["Plain/unset"]
		totals["webhook-unset/ungated"] += rate["Gated/unset"] / rate["Plain/unset"]
		totals["policy-unset-creates/s"] += rate["Policed/unset"]
		totals["policy-unset/ungated"] += rate["Policed/unset"] / rate["Plain/unset"]
		totals["ungated-cpu-us/create"] += cpuPerCreate["Plain"]
		totals["webhook-cpu-us/create"] += cpuPerCreate["Gated"]
		totals["policy-cpu-us/create"] += cpuPerCreate["Policed"]
		b.Logf("%d creates by %d workers: %.0f/s without a gate, %.0f/s through the webhook, %.0f/s through policies; "+
			"without the gated field %.0f/s, %.0f/s and %.0f/s", n, workers, rate["Plain"], rate["Gated"], rate["Policed"],
			rate["Plain/unset"], rate["Gated/unset"], rate["Policed/unset"])
		b.Logf("CPU of the API server and this process per create: %.0f µs without a gate, %.0f µs through the webhook, %.0f µs through policies",
			cpuPerCreate["Plain"], cpuPerCreate["Gated"], cpuPerCreate["Policed"])
		b.StartTimer()
	}
	for unit, total := range totals {
		b.ReportMetric(total/float64(b.N), unit)
	}
}

// applyPolicies writes the admission policies of gate over the Policed kind.
func applyPolicies(ctx context.Context, b *testing.B, gate featuresv1alpha1.FeatureGate) {
	b.Helper()
	set, err := featuregate.Compile(featuregate.FromAPI([]featuresv1alpha1.FeatureGate{gate}))
	if err != nil {
		b.Fatal(err)
	}
	p := set.Policies(featuregate.Target{CRD: "policeds.bench.example.com", Group: "bench.example.com", Version: "v1", Plural: "policeds"})
	for _, obj := range []client.Object{p.Mutating, p.MutatingBinding} {
		if err := k8sClient.Create(ctx, obj); err != nil {
			b.Fatal(err)
		}
	}
}

// gadget is an object of kind in the bench group with a field the gate covers.
func gadget(kind, namespace, name string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"value": "v", "extra": int64(1)}}}
	obj.SetGroupVersionKind(schema.GroupVersionKind{Group: "bench.example.com", Version: "v1", Kind: kind})
	obj.SetNamespace(namespace)
	obj.SetName(name)
	return obj
}

func hasExtra(obj *unstructured.Unstructured) bool {
	_, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "extra")
	return found
}

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

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// BenchmarkRequestCost measures the API server's CPU for each request one
// set of Flux's benchmark shape makes, 1,000 of each with 32 in flight, on a
// control plane of its own that no operator watches: the set's creation (by
// its user), the apply of its ID, hints and finalizer, its status patch, its
// Event, and the apply of each of its four objects as the ServiceAccount the
// set acts as (with the GET it no longer makes). It says where a set's time
// goes on a machine whose API server's CPU is the limit.
func BenchmarkRequestCost(b *testing.B) {
	ctx := context.Background()
	own, err := testenv.Start(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = own.Stop() })
	const n = 1000
	for b.Loop() {
		b.StopTimer()
		ns, err := testenv.TenantNamespace(ctx, own.Client, "cost-")
		if err != nil {
			b.Fatal(err)
		}
		tenant := impersonatingOn(b, own, ns, "default")
		measure := func(what, metric string, request func(i int) error) {
			before := readCPUOn(ctx, b, own)
			g := errgroup.Group{}
			g.SetLimit(32)
			for i := range n {
				g.Go(func() error { return request(i) })
			}
			if err := g.Wait(); err != nil {
				b.Fatalf("%s: %v", what, err)
			}
			cpu := readCPUOn(ctx, b, own).Sub(before)
			perRequest := func(seconds float64) float64 { return seconds * 1000 / n }
			b.Logf("%-46s API server %.2f ms, etcd %.2f ms per request", what,
				perRequest(cpu.APIServer.Seconds()), perRequest(cpu.Etcd.Seconds()))
			b.ReportMetric(perRequest(cpu.APIServer.Seconds()), metric+"-apiserver-ms")
		}
		name := func(i int) string { return fmt.Sprintf("app%d", i) }
		member := func(i, which int) *unstructured.Unstructured {
			obj := &unstructured.Unstructured{Object: fluxShapeObjects(name(i))[which]}
			obj.SetNamespace(ns)
			return obj
		}
		applyMember := func(which int) func(int) error {
			return func(i int) error {
				return tenant.Apply(ctx, client.ApplyConfigurationFromUnstructured(member(i, which)), client.FieldOwner("applyset-operator"))
			}
		}
		b.StartTimer()
		measure("create ApplySet (its user)", "set-create", func(i int) error {
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name(i)}}
			set.Spec.Resources, set.Spec.Wait = resources(b, fluxShapeObjects(name(i))), ptr.To(false)
			return own.Client.Create(ctx, set)
		})
		measure("apply the set's ID, hints and finalizer", "set-apply", func(i int) error {
			parent := applyset.ParentPatch(applyv1alpha1.GroupVersion.WithKind("ApplySet"),
				applyset.ParentKey{GroupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), Namespace: ns, Name: name(i)},
				applyset.ParentFields{ID: true, Tooling: ptr.To(identity.Tooling("v0.1.0")),
					GroupKinds: sets.New(schema.GroupKind{Kind: "ConfigMap"}, schema.GroupKind{Group: "apps", Kind: "Deployment"},
						schema.GroupKind{Kind: "Service"}, schema.GroupKind{Kind: "ServiceAccount"})})
			parent.SetFinalizers([]string{applyv1alpha1.MembersFinalizer})
			return own.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(parent),
				client.FieldOwner("applyset-operator-hints"), client.ForceOwnership)
		})
		measure("patch the set's status", "set-status", func(i int) error {
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name(i)}}
			patch := fmt.Sprintf(`{"status":{"observedGeneration":1,"memberCount":4,"conditions":[{"type":"Ready","status":"True",`+
				`"reason":"Succeeded","message":"4 created","lastTransitionTime":%q,"observedGeneration":1}]}}`,
				metav1.Now().UTC().Format("2006-01-02T15:04:05Z"))
			return own.Client.Status().Patch(ctx, set, client.RawPatch(types.MergePatchType, []byte(patch)))
		})
		measure("create the set's Event", "event", func(i int) error {
			return own.Client.Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: name(i) + "."},
				InvolvedObject: corev1.ObjectReference{Kind: "ApplySet", Namespace: ns, Name: name(i)},
				Type:           corev1.EventTypeNormal, Reason: "Applied", Message: "4 created, 0 configured, 0 pruned"})
		})
		measure("GET a member that does not exist yet", "get", func(i int) error {
			return client.IgnoreNotFound(tenant.Get(ctx, client.ObjectKey{Namespace: ns, Name: name(i)}, &corev1.ConfigMap{}))
		})
		for which, kind := range []string{"ServiceAccount", "ConfigMap", "Service", "Deployment"} {
			measure("apply a "+kind+" as the ServiceAccount", "apply-"+kind, applyMember(which))
		}
	}
}

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

package apply

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// requestCounter counts the requests a client makes.
type requestCounter struct {
	n    atomic.Int64
	next http.RoundTripper
}

func (c *requestCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

var _ = Describe("The cascade guard's cost", func() {
	// More members than one page of the guard's lists holds.
	const members = defaultListPageSize + 100

	It("is discovery, one list per namespaced type and page, and one list per page of a CRD's kind", func(ctx context.Context) {
		counter := &requestCounter{}
		cfg := rest.CopyConfig(env.Config)
		cfg.QPS, cfg.Burst = 1000, 1000
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter }
		counted, err := client.New(cfg, client.Options{Scheme: k8sClient.Scheme(), Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		engine := &Engine{Client: counted, FieldManager: fieldManager, Discovery: discovery.NewDiscoveryClientForConfigOrDie(cfg)}
		writer := &Engine{Client: k8sClient, FieldManager: fieldManager, Concurrency: 32}
		counting := func(f func()) int64 {
			before := counter.n.Load()
			f()
			return counter.n.Load() - before
		}
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cost-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		fresh := "own-" + namespace.Name
		group := namespace.Name + ".example.com"
		setID := applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ClusterApplySet"}, Name: fresh}.ID()
		var yaml strings.Builder
		fmt.Fprintf(&yaml, "apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n---\n", fresh)
		fmt.Fprintf(&yaml, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.%[1]s}
spec:
  group: %[1]s
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
---
`, group)
		for i := range members {
			fmt.Fprintf(&yaml, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d, namespace: %s}\n---\n", i, fresh)
			fmt.Fprintf(&yaml, "apiVersion: %s/v1\nkind: Widget\nmetadata: {name: w%d, namespace: %s}\n---\n", group, i, namespace.Name)
		}
		inputs, err := Decode("cost", []byte(yaml.String()))
		Expect(err).NotTo(HaveOccurred())
		objs, _, err := Check(inputs, Target{Scope: applyset.Scope{AdditionalNamespaces: sets.New(fresh, namespace.Name)},
			Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		_, err = writer.Apply(ctx, objs, ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())

		// plan counts the requests of a plan of pruning every member of kinds,
		// with and without the guard, and checks that both delete them all.
		plan := func(kinds ...schema.GroupKind) (unguarded, guarded int64) {
			GinkgoHelper()
			opts := PruneOptions{SetID: setID, Scope: applyset.Scope{AdditionalNamespaces: sets.New(fresh, namespace.Name)},
				Kinds: sets.New(kinds...), Keep: sets.New[ObjectRef](), Proven: LabelAppliedBy(sets.New(fieldManager)), DryRun: true}
			for _, cascade := range []bool{true, false} {
				o := opts
				if cascade {
					o.Cascade = func(ObjectRef) bool { return true }
				}
				n := counting(func() {
					p, err := engine.PlanPrune(ctx, o)
					Expect(err).NotTo(HaveOccurred())
					Expect(p.deletes).To(HaveLen(members+1), "the guard kept a member")
				})
				if cascade {
					unguarded = n
				} else {
					guarded = n
				}
			}
			return unguarded, guarded
		}
		// Types come and go as other specs' CRDs do: the count is taken again
		// until discovery answers alike before and after the plans.
		Eventually(func() int64 {
			var types *namespacedTypes
			discovered := counting(func() {
				types, err = engine.discoverNamespaced(ctx)
				Expect(err).NotTo(HaveOccurred())
			})
			Expect(types.unread).To(BeEmpty())
			unguarded, guarded := plan(namespaceKind, configMapKind)
			if after, err := engine.discoverNamespaced(ctx); err != nil || len(after.types) != len(types.types) {
				return -1
			}
			fmt.Fprintf(GinkgoWriter, "Namespace of %d members: %d requests unguarded, %d guarded (discovery %d, %d namespaced types)\n",
				members, unguarded, guarded, discovered, len(types.types))
			return guarded - unguarded - (discovered + int64(len(types.types)) + 1) // one more page for the ConfigMaps
		}).Should(BeZero())

		unguarded, guarded := plan(crdKind, schema.GroupKind{Group: group, Kind: "Widget"})
		fmt.Fprintf(GinkgoWriter, "CRD of %d members: %d requests unguarded, %d guarded\n", members, unguarded, guarded)
		Expect(guarded-unguarded).To(BeEquivalentTo(2), "two pages of Widgets")
	})
})

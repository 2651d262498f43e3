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
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// The floors a set's figures are read against (docs/operations/performance.md):
//   - the bare floor: its objects applied by no tool, as its ServiceAccount;
//   - the member floor: what the ApplySet protocol and a person cannot do
//     without, the person's own write of each set and its objects applied
//     each with the set's part-of label. What the operator writes beyond
//     that (hints, finalizer, status, its digest annotation) is its cost.

// floorLabel marks the sets a member floor creates, which the operator
// under benchmark does not watch (as a shard of its does not watch
// another's): their creation is the person's write and nothing more.
const floorLabel = "bench.applyset.dev/floor"

// withoutFloorSets restricts the operator's cache of ApplySets to those
// without floorLabel.
func withoutFloorSets(o *cache.Options) {
	req, err := labels.NewRequirement(floorLabel, selection.DoesNotExist, nil)
	if err != nil {
		panic(err)
	}
	if o.ByObject == nil {
		o.ByObject = map[client.Object]cache.ByObject{}
	}
	o.ByObject[&applyv1alpha1.ApplySet{}] = cache.ByObject{Label: labels.NewSelector().Add(*req)}
}

// asFloorSet is set marked for no operator to apply.
func asFloorSet(set *applyv1alpha1.ApplySet) *applyv1alpha1.ApplySet {
	set.SetLabels(map[string]string{floorLabel: "true"})
	return set
}

// partOf is objs as the members of the set namespace/name: each with its
// part-of label.
func partOf(objs []map[string]any, namespace, name string) []map[string]any {
	id := applyset.ParentKey{GroupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), Namespace: namespace, Name: name}.ID()
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		obj := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(o)}
		l := obj.GetLabels()
		if l == nil {
			l = map[string]string{}
		}
		l[applyset.PartOfLabel] = id
		obj.SetLabels(l)
		out[i] = obj.Object
	}
	return out
}

// memberFloor creates each of sets (marked asFloorSet) as the person does
// and applies its members, labelled, as its ServiceAccount, all of it
// inFlight at a time in the sets' namespace; members[i] are the objects of
// sets[i].
func memberFloor(ctx context.Context, b *testing.B, sets []*applyv1alpha1.ApplySet, members [][]map[string]any, inFlight int) time.Duration {
	b.Helper()
	ns := sets[0].Namespace
	as := impersonating(b, ns)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(inFlight)
	start := time.Now()
	for i, set := range sets {
		g.Go(func() error { return k8sClient.Create(gctx, asFloorSet(set)) })
		for _, o := range partOf(members[i], ns, set.Name) {
			obj := &unstructured.Unstructured{Object: o}
			obj.SetNamespace(ns)
			g.Go(func() error {
				return as.Apply(gctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("bench-floor"))
			})
		}
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

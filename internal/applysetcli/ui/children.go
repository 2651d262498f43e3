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

package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/pager"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/parents"
)

// mostChildren bounds what one page reads of each kind of owned object in
// a namespace: beyond it the counts say "at least".
const mostChildren = 5000

// childKinds are the objects workload controllers make for a member, which
// the page folds under it rather than drawing.
var childKinds = []struct {
	kind     string
	resource schema.GroupVersionResource
}{
	{"ReplicaSet", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}},
	{"Job", schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}},
	{"Pod", schema.GroupVersionResource{Version: "v1", Resource: "pods"}},
}

// ownerKinds are the members' kinds that own such objects.
var ownerKinds = sets.New("Deployment.apps", "StatefulSet.apps", "DaemonSet.apps", "ReplicaSet.apps", "Job.batch", "CronJob.batch")

// owned is an object by its kind, namespace and name.
type owned struct{ kind, namespace, name string }

// childrenOf says, for each member that owns objects through their
// controller references (a Deployment's ReplicaSets and their Pods), what
// it owns: "1 ReplicaSet, 3 Pods". It reads their metadata as the user, in
// the namespaces of such members only; what it could not read it returns
// as an error beside the rest.
func childrenOf(ctx context.Context, c metadata.Interface, members []parents.MemberHealth) ([]string, error) {
	namespaces := sets.New[string]()
	for _, m := range members {
		if ownerKinds.Has(m.Kind) && m.Namespace != "" {
			namespaces.Insert(m.Namespace)
		}
	}
	under := map[owned][]owned{} // an owner -> what it controls
	var errs []error
	for _, ns := range sets.List(namespaces) {
		for _, ck := range childKinds {
			err := eachOwned(ctx, c.Resource(ck.resource).Namespace(ns), func(m *metav1.PartialObjectMetadata) {
				if ref := metav1.GetControllerOf(m); ref != nil {
					owner := owned{kind: ref.Kind, namespace: ns, name: ref.Name}
					under[owner] = append(under[owner], owned{kind: ck.kind, namespace: ns, name: m.Name})
				}
			})
			if err != nil {
				errs = append(errs, fmt.Errorf("the %s of namespace %s could not be read: %w", ck.resource.Resource, ns, err))
			}
		}
	}
	out := make([]string, len(members))
	for i, m := range members {
		if !ownerKinds.Has(m.Kind) {
			continue
		}
		kind, _, _ := strings.Cut(m.Kind, ".")
		out[i] = countOwned(under, owned{kind: kind, namespace: m.Namespace, name: m.Name})
	}
	return out, errors.Join(errs...)
}

// countOwned counts what owner controls, and what that controls in turn.
func countOwned(under map[owned][]owned, owner owned) string {
	counts := map[string]int{}
	queue := slices.Clone(under[owner])
	// Controller references never form a circle; the bound holds if they do.
	for steps := 0; len(queue) > 0 && steps < len(childKinds)*mostChildren; steps++ {
		next := queue[0]
		queue = append(queue[1:], under[next]...)
		counts[next.kind]++
	}
	var parts []string
	for _, ck := range childKinds {
		if n := counts[ck.kind]; n > 0 {
			word := ck.kind
			if n > 1 {
				word += "s"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, word))
		}
	}
	return strings.Join(parts, ", ")
}

// eachOwned calls f for each object of a namespaced resource, up to mostChildren.
func eachOwned(ctx context.Context, res metadata.ResourceInterface, f func(*metav1.PartialObjectMetadata)) error {
	seen := 0
	p := pager.New(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return res.List(ctx, o) })
	p.PageSize = 500
	err := p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		if seen == mostChildren {
			return errEnough
		}
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
			seen++
			f(m)
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

// errEnough stops a list that read mostChildren objects.
var errEnough = errors.New("enough objects read")

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

package applysets

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// dependsOnIndex indexes sets by the sets they depend on: Kind/namespace/name.
const dependsOnIndex = ".spec.dependsOn"

// setKey names a set in the dependency graph.
type setKey struct {
	kind applyv1alpha1.SetKind
	types.NamespacedName
}

func (k setKey) String() string {
	if k.Namespace == "" {
		return string(k.kind) + " " + k.Name
	}
	return string(k.kind) + " " + k.Namespace + "/" + k.Name
}

func (k setKey) indexValue() string { return string(k.kind) + "/" + k.Namespace + "/" + k.Name }

func keyOf(set applyv1alpha1.Set) setKey {
	kind := applyv1alpha1.SetKindApplySet
	if set.GetNamespace() == "" {
		kind = applyv1alpha1.SetKindClusterApplySet
	}
	return setKey{kind: kind, NamespacedName: client.ObjectKeyFromObject(set)}
}

// dependencies resolves the sets of a set's spec.dependsOn: an ApplySet
// reference without a namespace names one in the depending set's own
// namespace. Entries that name other objects (objectdeps.go) are left out:
// only sets can close a circle.
func dependencies(set applyv1alpha1.Set) []setKey {
	refs := set.GetCommonSpec().DependsOn
	out := make([]setKey, 0, len(refs))
	for _, ref := range refs {
		if ref.NamesObject() {
			continue
		}
		key := setKey{kind: applyv1alpha1.SetKind(ref.Kind), NamespacedName: types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}}
		if key.kind == "" {
			key.kind = applyv1alpha1.SetKindApplySet
		}
		if key.kind == applyv1alpha1.SetKindApplySet && key.Namespace == "" {
			key.Namespace = set.GetNamespace()
		}
		if key.kind == applyv1alpha1.SetKindClusterApplySet {
			key.Namespace = ""
		}
		out = append(out, key)
	}
	return out
}

func newSetOf(kind applyv1alpha1.SetKind) applyv1alpha1.Set {
	if kind == applyv1alpha1.SetKindClusterApplySet {
		return &applyv1alpha1.ClusterApplySet{}
	}
	return &applyv1alpha1.ApplySet{}
}

// waitingOn says which dependencies of the set are not Ready for their
// current spec, reading them with reader, the set's own identity; "" when
// none. A cycle through the set is an error only a change can fix.
func (r *Reconciler) waitingOn(ctx context.Context, set applyv1alpha1.Set, reader client.Reader) (string, error) {
	deps := dependencies(set)
	if len(deps) == 0 {
		return "", nil
	}
	if cycle := r.cycleThrough(ctx, keyOf(set)); cycle != nil {
		return "", fmt.Errorf("the sets depend on each other in a circle: %s; remove one of the dependencies", joinKeys(cycle))
	}
	var waiting []string
	for _, dep := range deps {
		obj := newSetOf(dep.kind)
		err := reader.Get(ctx, dep.NamespacedName, obj)
		switch {
		case apierrors.IsNotFound(err):
			waiting = append(waiting, dep.String()+" does not exist")
		case apierrors.IsForbidden(err):
			resource := strings.ToLower(string(dep.kind)) + "s"
			return "", &apply.AccessError{Missing: []apply.Permission{{Verb: "get",
				Resource: applyv1alpha1.GroupVersion.WithResource(resource).GroupResource(), Namespace: dep.Namespace}}}
		case err != nil:
			return "", fmt.Errorf("reading %s: %w", dep, err)
		default:
			if why := notReady(obj); why != "" {
				waiting = append(waiting, dep.String()+" "+why)
			}
		}
	}
	return strings.Join(waiting, "; "), nil
}

// notReady says why a set is not Ready for its current spec, or "".
func notReady(set applyv1alpha1.Set) string {
	status := set.GetSetStatus()
	ready := apimeta.FindStatusCondition(status.Conditions, applyv1alpha1.ConditionReady)
	switch {
	case ready == nil || ready.ObservedGeneration != set.GetGeneration() || status.ObservedGeneration != set.GetGeneration():
		return "has not been reconciled at its current generation yet"
	case ready.Status != "True":
		return "is not Ready (" + ready.Reason + ")"
	case ready.Reason == applyv1alpha1.ReasonPreviewed:
		return "is only previewed (spec.dryRun)"
	}
	return ""
}

// cycleThrough follows dependencies from start through the sets the
// operator's cache holds, and returns the sets of a circle back to start.
func (r *Reconciler) cycleThrough(ctx context.Context, start setKey) []setKey {
	visited := map[setKey]bool{}
	var walk func(key setKey, path []setKey) []setKey
	walk = func(key setKey, path []setKey) []setKey {
		obj := newSetOf(key.kind)
		if err := r.client.Get(ctx, key.NamespacedName, obj); err != nil {
			return nil // a missing set closes no circle; the wait names it
		}
		for _, dep := range dependencies(obj) {
			if dep == start {
				return append(path, dep)
			}
			if visited[dep] {
				continue
			}
			visited[dep] = true
			if cycle := walk(dep, append(path, dep)); cycle != nil {
				return cycle
			}
		}
		return nil
	}
	return walk(start, []setKey{start})
}

func joinKeys(keys []setKey) string {
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		names = append(names, k.String())
	}
	return strings.Join(names, " -> ")
}

// dependsOnKeys indexes a set by its dependencies.
func dependsOnKeys(obj client.Object) []string {
	deps := dependencies(obj.(applyv1alpha1.Set))
	keys := make([]string, 0, len(deps))
	for _, d := range deps {
		keys = append(keys, d.indexValue())
	}
	return slices.Compact(slices.Sorted(slices.Values(keys)))
}

// dependents maps a set whose readiness changed to the sets that depend on it.
func (r *Reconciler) dependents(ctx context.Context, obj client.Object) []reconcile.Request {
	return requestsFor(r.listSets(ctx, client.MatchingFields{dependsOnIndex: keyOf(obj.(applyv1alpha1.Set)).indexValue()}))
}

// readinessChanged passes the updates that can change whether a set is
// Ready for its current spec: its Ready condition or its observed generation.
var readinessChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		before, after := e.ObjectOld.(applyv1alpha1.Set), e.ObjectNew.(applyv1alpha1.Set)
		return notReady(before) != notReady(after)
	},
}

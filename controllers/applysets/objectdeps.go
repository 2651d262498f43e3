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
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/health"
)

// errInvalidReadyExpr marks a readyExpr that does not compile: only a
// change of the set helps.
var errInvalidReadyExpr = errors.New("a readyExpr of spec.dependsOn does not compile")

// readyExprs compiles the readyExpr of every entry of deps that has one,
// by index; the error names each that does not compile.
func readyExprs(deps []applyv1alpha1.Dependency) (map[int]*health.Condition, error) {
	conds := map[int]*health.Condition{}
	var errs []error
	for i, d := range deps {
		if d.ReadyExpr == "" {
			continue
		}
		cond, err := health.CompileCondition(d.ReadyExpr)
		if err != nil {
			errs = append(errs, fmt.Errorf("spec.dependsOn[%d].readyExpr: %w", i, err))
			continue
		}
		conds[i] = cond
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", errInvalidReadyExpr, errors.Join(errs...))
	}
	return conds, nil
}

// objectsWait is what a set waits for of the objects it depends on.
type objectsWait struct {
	// waiting says, per object not ready, why.
	waiting []string
	// unwatched says why the changes of some of them cannot wake the set,
	// which must then look again by itself; "" when every one can.
	unwatched string
}

// objectsWaiting reads each object s's set depends on as the set's identity
// and judges it: by its readyExpr, charged to the set's CEL budget, or by
// kstatus. An object that is missing, that the identity may not read, or
// whose kind is not served is waited for, not an error; the watches of
// their kinds wake the set when they change.
func (r *Reconciler) objectsWaiting(ctx context.Context, s *scope) (objectsWait, error) {
	deps := s.spec.DependsOn
	conds, err := readyExprs(deps)
	if err != nil {
		return objectsWait{}, err
	}
	var out objectsWait
	var objects []watchedObject
	var judges []*health.Condition
	unserved := map[schema.GroupKind]string{}
	for i, d := range deps {
		if !d.NamesObject() {
			continue
		}
		obj, why := r.resolveObject(s.set, d)
		if why != "" {
			out.waiting = append(out.waiting, why)
			unserved[schema.FromAPIVersionAndKind(d.APIVersion, d.Kind).GroupKind()] = "the API server does not serve it"
			continue
		}
		objects, judges = append(objects, obj), append(judges, conds[i])
	}
	// Registered as waiting before the reads, so that a change during them wakes the set.
	r.watches.want(ctx, keyOf(s.set), objects, true)
	for i, obj := range objects {
		why, err := r.judgeObject(ctx, s, obj, judges[i])
		if err != nil {
			return objectsWait{}, err
		}
		if why != "" {
			out.waiting = append(out.waiting, why)
		}
	}
	unwatched := r.watches.want(ctx, keyOf(s.set), objects, len(out.waiting) > 0)
	maps.Copy(unwatched, unserved)
	out.unwatched = describeUnwatched(unwatched)
	return out, nil
}

// resolveObject finds how the object d names is served, and its namespace:
// the set's own for a namespaced object that names none. The string says
// why it cannot be found.
func (r *Reconciler) resolveObject(set applyv1alpha1.Set, d applyv1alpha1.Dependency) (watchedObject, string) {
	gvk := schema.FromAPIVersionAndKind(d.APIVersion, d.Kind)
	ref := objectName(d.Kind, d.Namespace, d.Name)
	mapping, err := r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return watchedObject{}, fmt.Sprintf("%s: the API server serves no kind %s in %s", ref, d.Kind, d.APIVersion)
	}
	key := types.NamespacedName{Name: d.Name}
	if mapping.Scope.Name() == apimeta.RESTScopeNameNamespace {
		key.Namespace = d.Namespace
		if key.Namespace == "" {
			key.Namespace = set.GetNamespace()
		}
		if key.Namespace == "" {
			return watchedObject{}, fmt.Sprintf("%s is namespaced: name its namespace in spec.dependsOn", ref)
		}
	}
	return watchedObject{mapping: mapping, key: key}, ""
}

// judgeObject reads obj as the set's identity and says why it is not ready,
// or "" when it is. Only a read that fails for another reason than a
// missing object or a refusal is an error.
func (r *Reconciler) judgeObject(ctx context.Context, s *scope, o watchedObject, cond *health.Condition) (string, error) {
	gvk := o.mapping.GroupVersionKind
	ref := objectName(gvk.Kind, o.key.Namespace, o.key.Name)
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	err := s.engine.Reader.Get(ctx, o.key, obj)
	switch {
	case apierrors.IsNotFound(err):
		return ref + " does not exist", nil
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("%s cannot be read: forbidden for %s, which needs get on %s", ref, s.act, o.mapping.Resource.GroupResource()), nil
	case err != nil:
		return "", fmt.Errorf("reading %s as %s: %w", ref, s.act, err)
	}
	if cond != nil {
		holds, err := s.checker.Holds(cond, obj)
		switch {
		case err != nil:
			return fmt.Sprintf("%s is not ready: readyExpr %q: %v", ref, cond, err), nil
		case !holds:
			return fmt.Sprintf("%s is not ready: readyExpr %q is false", ref, cond), nil
		}
		return "", nil
	}
	if res := (&health.Checker{}).Judge(obj); res.Status != health.Current {
		return fmt.Sprintf("%s is %s (kstatus): %s", ref, res.Status, res.Message), nil
	}
	return "", nil
}

// objectName reads like Certificate team-a/web-tls, or Namespace team-a.
func objectName(kind, namespace, name string) string {
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

// describeUnwatched says which kinds are not watched, and why.
func describeUnwatched(unwatched map[schema.GroupKind]string) string {
	parts := make([]string, 0, len(unwatched))
	for _, gk := range slices.SortedFunc(maps.Keys(unwatched), func(a, b schema.GroupKind) int {
		return strings.Compare(a.String(), b.String())
	}) {
		parts = append(parts, gk.String()+" ("+unwatched[gk]+")")
	}
	return strings.Join(parts, ", ")
}

// joinWaiting adds to what a set waits for of other sets what it waits for
// of objects, and, where no watch can wake it, that it looks again by itself.
func joinWaiting(sets string, objects objectsWait) string {
	parts := objects.waiting
	if sets != "" {
		parts = append([]string{sets}, parts...)
	}
	if len(parts) == 0 {
		return ""
	}
	msg := strings.Join(parts, "; ")
	if objects.unwatched != "" {
		msg += "; the operator does not watch " + objects.unwatched + ", so the set looks again by itself, less often the longer it waits"
	}
	return msg
}

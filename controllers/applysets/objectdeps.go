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
	"github.com/applyset-operator/applyset-operator/internal/depwatch"
	"github.com/applyset-operator/applyset-operator/internal/health"
	"github.com/applyset-operator/applyset-operator/pkg/text"
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
// whose kind is not served is waited for, not an error. Each object the
// identity could read is then watched, as that identity, so that its
// changes wake the set (internal/depwatch).
func (r *Reconciler) objectsWaiting(ctx context.Context, s *scope) (objectsWait, error) {
	deps := s.spec.DependsOn
	conds, err := readyExprs(deps)
	if err != nil {
		return objectsWait{}, err
	}
	var out objectsWait
	var targets []depwatch.Target
	names := map[depwatch.Target]string{}
	unwatched := map[string]string{}
	for i, d := range deps {
		if !d.NamesObject() {
			continue
		}
		obj, why := r.resolveObject(s.set, d)
		if why != "" {
			out.waiting = append(out.waiting, why)
			unwatched[objectName(d.Kind, d.Namespace, d.Name)] = "the API server does not serve it"
			continue
		}
		why, read, err := r.judgeObject(ctx, s, obj, conds[i])
		switch {
		case err != nil:
			return objectsWait{}, err
		case why != "":
			out.waiting = append(out.waiting, why)
		}
		if !read {
			unwatched[obj.name()] = "its identity may not read it"
			continue
		}
		t := depwatch.Target{User: s.act.user(), Resource: obj.mapping.Resource, Namespace: obj.key.Namespace, Name: obj.key.Name}
		targets, names[t] = append(targets, t), obj.name()
	}
	refused := r.watches.Want(ctx, keyOf(s.set), s.set.GetNamespace(), targets, len(out.waiting) > 0)
	for t, why := range refused {
		unwatched[names[t]] = why
	}
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
// or "" when it is, and whether the identity may read it (a missing object
// too). Only a read that fails for another reason than a missing object or
// a refusal is an error.
func (r *Reconciler) judgeObject(ctx context.Context, s *scope, o watchedObject, cond *health.Condition) (string, bool, error) {
	ref := o.name()
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(o.mapping.GroupVersionKind)
	err := s.engine.Reader.Get(ctx, o.key, obj)
	switch {
	case apierrors.IsNotFound(err):
		return ref + " does not exist", true, nil
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("%s cannot be read: forbidden for %s, which needs get on %s", ref, s.act, o.mapping.Resource.GroupResource()), false, nil
	case err != nil:
		return "", false, fmt.Errorf("reading %s as %s: %w", ref, s.act, err)
	}
	if cond != nil {
		holds, err := s.checker.Holds(cond, obj)
		switch {
		case err != nil:
			return fmt.Sprintf("%s is not ready: readyExpr %q: %v", ref, cond, err), true, nil
		case !holds:
			return fmt.Sprintf("%s is not ready: readyExpr %q is false", ref, cond), true, nil
		}
		return "", true, nil
	}
	if res := (&health.Checker{}).Judge(obj); res.Status != health.Current {
		return fmt.Sprintf("%s is %s (kstatus): %s", ref, res.Status, res.Message), true, nil
	}
	return "", true, nil
}

// watchedObject is one object a set depends on, with how it is served.
type watchedObject struct {
	mapping *apimeta.RESTMapping
	key     types.NamespacedName
}

func (o watchedObject) name() string {
	return objectName(o.mapping.GroupVersionKind.Kind, o.key.Namespace, o.key.Name)
}

// objectName reads like Certificate team-a/web-tls, or Namespace team-a.
func objectName(kind, namespace, name string) string {
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

// maxWaitingNamed bounds what a waiting set's message names: what it waits
// for, and the objects not watched.
const maxWaitingNamed = 5

// describeUnwatched says which objects are not watched, and why.
func describeUnwatched(unwatched map[string]string) string {
	parts := make([]string, 0, len(unwatched))
	for _, name := range slices.Sorted(maps.Keys(unwatched)) {
		parts = append(parts, name+" ("+unwatched[name]+")")
	}
	return text.Summarize(parts, maxWaitingNamed)
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
	// A set may wait for 32 objects: the first few are named, so that the
	// message keeps room to say which are not watched.
	msg := strings.Join(parts[:min(len(parts), maxWaitingNamed)], "; ")
	if len(parts) > maxWaitingNamed {
		msg += fmt.Sprintf("; and %d more", len(parts)-maxWaitingNamed)
	}
	if objects.unwatched != "" {
		msg += "; the operator does not watch " + objects.unwatched + ", so the set looks again by itself, less often the longer it waits"
	}
	return msg
}

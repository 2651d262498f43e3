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
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// objectPlan is what inspecting one declared object found, before any write.
type objectPlan struct {
	Object
	// desired is what will be applied: the object labelled as a member, with
	// ignored fields of an existing object set to their current values.
	desired *unstructured.Unstructured
	// config names what was declared, as it is applied: desired's
	// configuration digest, kept when desired is not.
	config string
	// existing is the object as it is; nil when it does not exist.
	existing *unstructured.Unstructured
	// done is the outcome when no write is needed or possible; err says why
	// it failed. denied names a read the identity may not make; Apply then
	// writes nothing.
	done   *Change
	err    error
	denied *Permission
	// previewed is true when done stands for a write a preview cannot make
	// (its Namespace or CRD is created by the set first): a real apply sends it.
	previewed bool
	// guarded is true when the object was not read: it is created guarded,
	// and read only should it exist (guard.go).
	guarded bool
	// leave is true when the apply leaves the object as it is, under
	// LeaveDrift, and only looks for its drift (drift.go).
	leave bool
}

// inspect reads every object as it is and decides what each needs: nothing
// (up to date), an apply, or nothing it can have (it belongs to another set,
// or cannot be read). Objects the set has no record of are not read when the
// apply creates them guarded (guard.go).
func (e *Engine) inspect(ctx context.Context, objects []Object, opts ApplyOptions) []objectPlan {
	return e.inspectAll(ctx, objects, opts, opts.guarding())
}

// inspectAll is inspect, creating unrecorded objects guarded when guard is
// true and reading every object when it is false. Each object is judged as
// soon as it is read (readEach), so that what is left unchanged is dropped
// before the rest is read.
func (e *Engine) inspectAll(ctx context.Context, objects []Object, opts ApplyOptions, guard bool) []objectPlan {
	plans := make([]objectPlan, len(objects))
	var read []Object
	var at []int
	for i, o := range objects {
		if guard && opts.guards(o) {
			plans[i] = planFor(o, opts)
			plans[i].guarded = true
			continue
		}
		read, at = append(read, o), append(at, i)
	}
	e.readEach(ctx, read, func(j int, existing *unstructured.Unstructured, err error) {
		plans[at[j]] = e.inspectOne(read[j], opts, existing, err)
	})
	if opts.DryRun {
		previewInNewNamespaces(plans)
	}
	return plans
}

// unchanged says the object exists as it would be applied: its plan keeps
// no copy of it.
func (p objectPlan) unchanged() bool { return p.done != nil && p.done.Action == Unchanged }

// planFor is the plan of o before it is read: what would be applied.
func planFor(o Object, opts ApplyOptions) objectPlan {
	p := objectPlan{Object: o, desired: withPartOf(o.Object, opts.SetID)}
	if opts.WithoutDigest {
		p.config = bodyDigest(p.desired)
		return p
	}
	stampConfig(p.desired)
	p.config = p.desired.GetAnnotations()[appliedConfigAnnotation]
	return p
}

// inspectOne decides what o needs, given the object as it is (existing, nil
// when it does not exist) or the error of its read.
func (e *Engine) inspectOne(o Object, opts ApplyOptions, existing *unstructured.Unstructured, err error) objectPlan {
	ref := o.Ref()
	p := planFor(o, opts)
	switch {
	case o.Mapping == nil && opts.DryRun:
		// Its CRD is part of the set and not created yet: a preview cannot run it.
		p.done = &Change{Ref: ref, Action: Created, Reason: "its CustomResourceDefinition is created by this set first"}
		p.previewed = true
		return p
	case err != nil:
		// An object the identity may not read is one it must apply blind:
		// the writes an apply needs are asked about as well.
		if p.denied = deniedRead(err, "get", o.Resource, o.Object.GetNamespace()); p.denied == nil {
			p.done, p.err = changeOf(failed(ref, err)), err
		}
		return p
	}
	if existing != nil {
		if owner := existing.GetLabels()[applyset.PartOfLabel]; owner != "" && owner != opts.SetID {
			p.err = fmt.Errorf("%w (part-of %s); remove it from one of the sets", ErrOverlap, owner)
			p.done = changeOf(failed(ref, p.err))
			return p
		}
	}
	p.existing = existing
	p.desired = withIgnoredLeft(p.desired, existing, ignoredPaths(ref, opts.Ignore))
	// An apply that would change nothing is not sent: a steady set costs no
	// writes. One that still has ownership to hand over is (handover.go).
	if upToDate(existing, p.desired, e.FieldManager) && e.planHandover(existing, p.desired) == nil {
		// Nothing is written: the plan keeps neither copy, which a steady set
		// of 100,000 held until its end, only what a real apply's Change keeps.
		p.done, p.existing, p.desired = &Change{Ref: ref, Action: Unchanged}, nil, nil
		if !opts.DryRun {
			p.done.Object = opts.kept(existing)
		}
		return p
	}
	p.leave = e.leavesDrift(p, opts)
	return p
}

// previewInNewNamespaces marks the objects of a dry run that lie in a
// Namespace the same set creates: the API server cannot preview an object in
// a namespace that does not exist, so they are reported as creates.
func previewInNewNamespaces(plans []objectPlan) {
	created := sets.New[string]()
	for _, p := range plans {
		if ref := p.Ref(); ref.GroupKind == namespaceGroupKind && p.existing == nil && p.err == nil && !p.unchanged() {
			created.Insert(ref.Name)
		}
	}
	for i, p := range plans {
		if ns := p.Object.Object.GetNamespace(); p.done == nil && p.existing == nil && created.Has(ns) {
			plans[i].done = &Change{Ref: p.Ref(), Action: Created, Reason: "its Namespace " + ns + " is created by this set first"}
			plans[i].previewed = true
		}
	}
}

// withPartOf returns obj labelled as a member of the set: a copy of its top
// level and metadata that shares the rest with obj. Nothing writes to the
// rest through it (what would, leaveIgnored, works on a whole copy), and a
// copy of every member's whole body was the largest share of a big set's
// memory.
func withPartOf(obj *unstructured.Unstructured, setID string) *unstructured.Unstructured {
	out := &unstructured.Unstructured{Object: maps.Clone(obj.Object)}
	if meta, ok := out.Object["metadata"].(map[string]any); ok {
		out.Object["metadata"] = maps.Clone(meta)
	}
	labels := out.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[applyset.PartOfLabel] = setID
	out.SetLabels(labels)
	return out
}

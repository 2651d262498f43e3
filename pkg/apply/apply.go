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
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// ApplyOptions are the choices of one apply. The name pairs it with
// PruneOptions: each verb of the engine takes its own options.
type ApplyOptions struct { //nolint:revive // apply.ApplyOptions reads as the options of the Apply verb.
	// SetID is written into every object's part-of label.
	SetID string
	// DryRun previews the apply with server-side dry-run: nothing changes.
	DryRun bool
	// Force takes over fields that other field managers own.
	Force bool
	// Disband applies the objects without the part-of label, which server-side
	// apply then removes, leaving the objects as they are otherwise.
	Disband bool
}

// Apply applies the objects: CustomResourceDefinitions and Namespaces first,
// then, once the CRDs are served, the rest. Each object gets the part-of label.
// The change set has one change per object; the error joins every object's error.
func (e *Engine) Apply(ctx context.Context, objects []Object, opts ApplyOptions) (ChangeSet, error) {
	first, rest := splitStages(objects)
	cs, err := e.applyStage(ctx, first, opts)
	if err != nil {
		return cs, err
	}
	if !opts.DryRun {
		if err := e.waitForCRDs(ctx, first); err != nil {
			return cs, err
		}
	}
	more, err := e.applyStage(ctx, rest, opts)
	cs.Append(more)
	cs.DryRun = opts.DryRun
	return cs, err
}

func splitStages(objects []Object) (first, rest []Object) {
	for _, o := range objects {
		switch o.Object.GroupVersionKind().GroupKind() {
		case crdGroupKind, schema.GroupKind{Kind: "Namespace"}:
			first = append(first, o)
		default:
			rest = append(rest, o)
		}
	}
	return first, rest
}

func (e *Engine) applyStage(ctx context.Context, objects []Object, opts ApplyOptions) (ChangeSet, error) {
	var (
		mu   sync.Mutex
		cs   ChangeSet
		errs []error
	)
	known := e.prefetch(ctx, objects)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmp.Or(e.Concurrency, 8))
	for _, o := range objects {
		g.Go(func() error {
			change, conflict, err := e.applyOne(gctx, o, opts, known)
			mu.Lock()
			defer mu.Unlock()
			cs.Changes = append(cs.Changes, change)
			if conflict != nil {
				cs.Conflicts = append(cs.Conflicts, *conflict)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", o.Ref(), err))
			}
			return nil
		})
	}
	_ = g.Wait()
	sortChanges(cs.Changes)
	return cs, errors.Join(errs...)
}

func (e *Engine) applyOne(ctx context.Context, o Object, opts ApplyOptions, known map[ObjectRef]*unstructured.Unstructured) (Change, *Conflict, error) {
	ref := o.Ref()
	desired := o.Object.DeepCopy()
	if !opts.Disband {
		desired = withPartOf(o.Object, opts.SetID)
	}
	existing, early, err := e.current(ctx, desired, o, opts, known)
	if early != nil || err != nil {
		return *early, nil, err
	}
	// An apply that would change nothing is not sent: a steady set costs no writes.
	if !opts.Force && upToDate(existing, desired, e.FieldManager) {
		return Change{Ref: ref, Action: Unchanged}, nil, nil
	}

	applyOpts := []client.ApplyOption{client.FieldOwner(e.FieldManager)}
	if opts.Force {
		applyOpts = append(applyOpts, client.ForceOwnership)
	}
	if opts.DryRun {
		applyOpts = append(applyOpts, client.DryRunAll)
	}
	result := desired.DeepCopy()
	err = e.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(result), applyOpts...)
	conflict := ConflictOf(ref, err)
	if conflict != nil && existing != nil && onlyEdited(existing, conflict.managers) {
		// Drift: fields the set declares were changed by edits (update
		// operations), not declared by another applier. They are put back.
		result = desired.DeepCopy()
		err = e.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(result), append(applyOpts, client.ForceOwnership)...)
		conflict = ConflictOf(ref, err)
	}
	if err != nil {
		if conflict != nil {
			return failed(ref, errors.New(conflict.Message())), conflict, err
		}
		return failed(ref, err), nil, err
	}
	if existing == nil {
		return Change{Ref: ref, Action: Created}, nil, nil
	}
	if fields := changedFields(existing.Object, result.Object); len(fields) > 0 {
		return Change{Ref: ref, Action: Configured, Fields: fields}, nil, nil
	}
	return Change{Ref: ref, Action: Unchanged}, nil, nil
}

// withPartOf returns a copy of obj labelled as a member of the set.
func withPartOf(obj *unstructured.Unstructured, setID string) *unstructured.Unstructured {
	out := obj.DeepCopy()
	labels := out.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[applyset.PartOfLabel] = setID
	out.SetLabels(labels)
	return out
}

// current reads the object as it is (nil when it does not exist). It ends the
// apply early, with the change to report, when the object belongs to another
// set or cannot be previewed yet.
func (e *Engine) current(ctx context.Context, desired *unstructured.Unstructured, o Object, opts ApplyOptions,
	known map[ObjectRef]*unstructured.Unstructured) (*unstructured.Unstructured, *Change, error) {
	ref := o.Ref()
	if existing, listed := known[ref]; listed {
		return overlapCheck(ref, existing, opts)
	}
	existing := &unstructured.Unstructured{}
	existing.SetGroupVersionKind(desired.GroupVersionKind())
	err := e.Client.Get(ctx, client.ObjectKeyFromObject(desired), existing)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil, nil
	case meta.IsNoMatchError(err) && opts.DryRun && o.Mapping == nil:
		// Its CRD is part of the set and not created yet: a preview cannot run it.
		return nil, &Change{Ref: ref, Action: Created, Reason: "its CustomResourceDefinition is created by this set first"}, nil
	case err != nil:
		change := failed(ref, err)
		return nil, &change, err
	}
	return overlapCheck(ref, existing, opts)
}

// overlapCheck refuses an object that belongs to another set.
func overlapCheck(ref ObjectRef, existing *unstructured.Unstructured, opts ApplyOptions) (*unstructured.Unstructured, *Change, error) {
	if existing == nil {
		return nil, nil, nil
	}
	if owner := existing.GetLabels()[applyset.PartOfLabel]; owner != "" && owner != opts.SetID {
		err := fmt.Errorf("%w (part-of %s); remove it from one of the sets", ErrOverlap, owner)
		change := failed(ref, err)
		return nil, &change, err
	}
	return existing, nil, nil
}

// listThreshold is the number of objects of one kind in one namespace from
// which one LIST replaces a GET per object.
const listThreshold = 4

// prefetch lists the objects of the kinds and namespaces that the set declares
// many of, so that their applies need no GET each. Objects absent from a
// complete list are recorded as nil (known not to exist); failed lists record
// nothing and the applies fall back to GETs.
func (e *Engine) prefetch(ctx context.Context, objects []Object) map[ObjectRef]*unstructured.Unstructured {
	type bucket struct {
		gvk       schema.GroupVersionKind
		namespace string
	}
	declared := map[bucket][]ObjectRef{}
	for _, o := range objects {
		if o.Mapping == nil {
			continue
		}
		b := bucket{o.Object.GroupVersionKind(), o.Object.GetNamespace()}
		declared[b] = append(declared[b], o.Ref())
	}
	known := map[ObjectRef]*unstructured.Unstructured{}
	for b, refs := range declared {
		if len(refs) < listThreshold {
			continue
		}
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(b.gvk.GroupVersion().WithKind(b.gvk.Kind + "List"))
		if err := e.Client.List(ctx, list, client.InNamespace(b.namespace)); err != nil {
			continue
		}
		for _, ref := range refs {
			known[ref] = nil
		}
		for i := range list.Items {
			item := &list.Items[i]
			ref := ObjectRef{GroupKind: b.gvk.GroupKind(), Namespace: item.GetNamespace(), Name: item.GetName()}
			if _, wanted := known[ref]; wanted {
				item.SetGroupVersionKind(b.gvk)
				known[ref] = item
			}
		}
	}
	return known
}

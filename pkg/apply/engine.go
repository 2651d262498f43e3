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
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Engine applies and prunes sets of objects.
type Engine struct {
	// Client reads and writes members; give it an impersonating config to act
	// with a tenant's permissions.
	Client client.Client
	// Reader lists members for pruning; nil uses Client. Give a cached client an
	// uncached reader here: a cache would keep every object of each listed kind.
	Reader client.Reader
	// FieldManager owns the fields the engine applies.
	FieldManager string
	// Concurrency bounds the objects applied at once; 0 means 8.
	Concurrency int
	// EstablishTimeout bounds the wait for applied CRDs to be served; 0 means a minute.
	EstablishTimeout time.Duration
}

// Options are the choices of one apply.
type Options struct {
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

// ErrOverlap marks an object that already belongs to another set.
var ErrOverlap = errors.New("the object belongs to another ApplySet")

// Apply applies the objects: CustomResourceDefinitions and Namespaces first,
// then, once the CRDs are served, the rest. Each object gets the part-of label.
// The change set has one change per object; the error joins every object's error.
func (e *Engine) Apply(ctx context.Context, objects []Object, opts Options) (ChangeSet, error) {
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

func (e *Engine) applyStage(ctx context.Context, objects []Object, opts Options) (ChangeSet, error) {
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

func (e *Engine) applyOne(ctx context.Context, o Object, opts Options, known map[ObjectRef]*unstructured.Unstructured) (Change, *Conflict, error) {
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
func (e *Engine) current(ctx context.Context, desired *unstructured.Unstructured, o Object, opts Options,
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
func overlapCheck(ref ObjectRef, existing *unstructured.Unstructured, opts Options) (*unstructured.Unstructured, *Change, error) {
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

func failed(ref ObjectRef, err error) Change {
	return Change{Ref: ref, Action: Failed, Reason: err.Error()}
}

// ConflictOf reads the field managers and fields of an apply conflict; nil
// when err is no apply conflict.
func ConflictOf(ref ObjectRef, err error) *Conflict {
	var status apierrors.APIStatus
	if err == nil || !apierrors.IsConflict(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	byManager := map[string][]string{}
	for _, c := range status.Status().Details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		manager := "another field manager"
		if _, rest, ok := strings.Cut(c.Message, `conflict with "`); ok {
			manager = strings.SplitN(rest, `"`, 2)[0]
		}
		byManager[manager] = append(byManager[manager], c.Field)
	}
	managers := slices.Sorted(maps.Keys(byManager))
	if len(managers) == 0 {
		return nil
	}
	// One conflict per object, naming every manager involved.
	var fields []string
	for _, manager := range managers {
		fields = append(fields, byManager[manager]...)
	}
	return &Conflict{Ref: ref, Manager: strings.Join(managers, ", "), Fields: fields, managers: managers}
}

// onlyEdited reports whether every one of managers changed obj only through
// updates (kubectl edit, scale, client-side apply), never through apply.
func onlyEdited(obj *unstructured.Unstructured, managers []string) bool {
	for _, m := range managers {
		for _, entry := range obj.GetManagedFields() {
			if entry.Manager == m && entry.Operation != metav1.ManagedFieldsOperationUpdate {
				return false
			}
		}
	}
	return len(managers) > 0
}

// waitForCRDs waits until every applied CRD is Established.
func (e *Engine) waitForCRDs(ctx context.Context, objects []Object) error {
	timeout := cmp.Or(e.EstablishTimeout, time.Minute)
	for _, o := range objects {
		if o.Object.GroupVersionKind().GroupKind() != crdGroupKind {
			continue
		}
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(o.Object.GroupVersionKind())
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
			if err := e.Client.Get(ctx, client.ObjectKey{Name: o.Object.GetName()}, crd); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, c := range conditions {
				cond, _ := c.(map[string]any)
				if cond["type"] == "Established" && cond["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("waiting for CustomResourceDefinition %s to be established: %w", o.Object.GetName(), err)
		}
	}
	return nil
}

func sortChanges(changes []Change) {
	slices.SortFunc(changes, func(a, b Change) int { return cmp.Compare(a.Ref.String(), b.Ref.String()) })
}

// PruneTarget says which members a prune may delete.
type PruneTarget struct {
	// SetID is the ID the members carry.
	SetID string
	// ParentUID is the parent's UID; members with owner references must point at it.
	ParentUID string
	// Scope is where members may live; others are never deleted.
	Scope applyset.Scope
	// Kinds are the kinds to look at (the parent's hint, a superset of the members' kinds).
	Kinds sets.Set[schema.GroupKind]
	// Keep are the objects still declared.
	Keep sets.Set[ObjectRef]
	// DryRun previews the prune with server-side dry-run.
	DryRun bool
}

// Prune deletes the members that are no longer declared and may be deleted:
// they carry the set's ID, lie in its scope, and their owner references, if
// any, point at the parent. Deletes carry a UID precondition.
func (e *Engine) Prune(ctx context.Context, mapper meta.RESTMapper, target PruneTarget) (ChangeSet, error) {
	cs := ChangeSet{DryRun: target.DryRun}
	var errs []error
	kinds := target.Kinds.UnsortedList()
	slices.SortFunc(kinds, func(a, b schema.GroupKind) int { return cmp.Compare(a.String(), b.String()) })
	for _, gk := range kinds {
		candidates, err := e.listMembers(ctx, mapper, gk, target)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, m := range candidates {
			ref := ObjectRef{GroupKind: gk, Namespace: m.Namespace, Name: m.Name}
			if target.Keep.Has(ref) {
				continue
			}
			if reason := pruneBlocker(m, target); reason != "" {
				cs.Changes = append(cs.Changes, Change{Ref: ref, Action: Skipped, Reason: reason})
				continue
			}
			opts := []client.DeleteOption{client.Preconditions{UID: &m.UID}}
			if target.DryRun {
				opts = append(opts, client.DryRunAll)
			}
			if err := e.Client.Delete(ctx, m, opts...); client.IgnoreNotFound(err) != nil {
				errs = append(errs, fmt.Errorf("pruning %s: %w", ref, err))
				cs.Changes = append(cs.Changes, failed(ref, err))
				continue
			}
			cs.Changes = append(cs.Changes, Change{Ref: ref, Action: Pruned})
		}
	}
	sortChanges(cs.Changes)
	return cs, errors.Join(errs...)
}

// listMembers lists the metadata of the objects of kind gk that carry the set's
// ID, in every namespace of the scope (or at cluster scope).
func (e *Engine) listMembers(ctx context.Context, mapper meta.RESTMapper, gk schema.GroupKind, target PruneTarget) ([]*metav1.PartialObjectMetadata, error) {
	mapping, err := mapper.RESTMapping(gk)
	if meta.IsNoMatchError(err) {
		return nil, nil // the kind is gone, and its objects with it
	}
	if err != nil {
		return nil, fmt.Errorf("looking up %s: %w", gk, err)
	}
	namespaces := []string{""}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		namespaces = target.Scope.Namespaces()
	}
	var out []*metav1.PartialObjectMetadata
	for _, ns := range namespaces {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(mapping.GroupVersionKind.GroupVersion().WithKind(mapping.GroupVersionKind.Kind + "List"))
		if err := e.reader().List(ctx, list, client.InNamespace(ns), client.MatchingLabels{applyset.PartOfLabel: target.SetID}); err != nil {
			return nil, fmt.Errorf("listing %s members in %q: %w", gk, ns, err)
		}
		for i := range list.Items {
			item := &list.Items[i]
			item.SetGroupVersionKind(mapping.GroupVersionKind)
			out = append(out, item)
		}
	}
	return out, nil
}

func (e *Engine) reader() client.Reader {
	if e.Reader != nil {
		return e.Reader
	}
	return e.Client
}

// pruneBlocker says why a member must be kept, or "" when it may be deleted.
func pruneBlocker(m *metav1.PartialObjectMetadata, target PruneTarget) string {
	if m.Labels[applyset.PartOfLabel] != target.SetID {
		return "it does not carry the set's ID"
	}
	if m.Namespace != "" && !target.Scope.Contains(m.Namespace) {
		return "it lies outside the set's namespaces"
	}
	if len(m.OwnerReferences) > 0 && !slices.ContainsFunc(m.OwnerReferences, func(r metav1.OwnerReference) bool {
		return string(r.UID) == target.ParentUID
	}) {
		return fmt.Sprintf("it is owned by %s %s, not by the set's parent", m.OwnerReferences[0].Kind, m.OwnerReferences[0].Name)
	}
	return ""
}

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
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/pager"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// listThreshold is the number of objects of one kind in one namespace from
// which one LIST replaces a GET per object.
const listThreshold = 4

// defaultListPageSize is the most objects one LIST the engine makes returns,
// as kubectl's --chunk-size.
const defaultListPageSize = 500

// visitFunc is handed one object as it is, by its index in the objects
// read: nil when it does not exist (or its kind is not served yet), or the
// error that kept it from being read.
type visitFunc func(i int, existing *unstructured.Unstructured, err error)

// readEach reads every object as it is and hands it to visit, at most
// Concurrency visits at once. The objects of a kind and namespace the set
// declares many of are read with one paged LIST, the others with a GET each.
// A page is read only as visit keeps up, so a set's objects are never all
// held at once: whatever visit drops is free before the read ends.
func (e *Engine) readEach(ctx context.Context, objects []Object, visit visitFunc) {
	limit := cmp.Or(e.Concurrency, DefaultConcurrency)
	var visits, lists errgroup.Group
	visits.SetLimit(limit)
	lists.SetLimit(limit)
	for _, b := range bucketsOf(objects) {
		if len(b.at) < listThreshold {
			for _, i := range b.at {
				visits.Go(func() error { return e.visitGot(ctx, objects[i], i, visit) })
			}
			continue
		}
		lists.Go(func() error {
			e.readListed(ctx, objects, b, &visits, visit)
			return nil
		})
	}
	_ = lists.Wait() // before visits.Wait: lists add visits
	_ = visits.Wait()
}

// bucket is the objects of one kind in one namespace, by index.
type bucket struct {
	gvk       schema.GroupVersionKind
	namespace string
	at        []int
}

// bucketsOf groups objects by kind and namespace; an object whose kind is not
// served yet is a bucket of its own, which is never listed.
func bucketsOf(objects []Object) []bucket {
	type key struct {
		gvk       schema.GroupVersionKind
		namespace string
	}
	var out []bucket
	index := map[key]int{}
	for i, o := range objects {
		if o.Mapping == nil {
			out = append(out, bucket{at: []int{i}})
			continue
		}
		k := key{o.Object.GroupVersionKind(), o.Object.GetNamespace()}
		at, ok := index[k]
		if !ok {
			at = len(out)
			index[k] = at
			out = append(out, bucket{gvk: k.gvk, namespace: k.namespace})
		}
		out[at].at = append(out[at].at, i)
	}
	return out
}

// readListed reads the objects of b with a paged LIST, visiting each as its
// page arrives. What a complete list did not find does not exist; after a
// list that failed, what it had not found yet is read with GETs.
func (e *Engine) readListed(ctx context.Context, objects []Object, b bucket, visits *errgroup.Group, visit visitFunc) {
	wanted := make(map[ObjectRef][]int, len(b.at))
	for _, i := range b.at {
		ref := objects[i].Ref()
		wanted[ref] = append(wanted[ref], i)
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(listKindOf(b.gvk))
	err := e.eachListed(ctx, e.Client, list, func(obj runtime.Object) {
		item, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		ref := ObjectRef{GroupKind: b.gvk.GroupKind(), Namespace: item.GetNamespace(), Name: item.GetName()}
		at, ok := wanted[ref]
		if !ok {
			return
		}
		delete(wanted, ref)
		item.SetGroupVersionKind(b.gvk)
		for _, i := range at {
			visits.Go(func() error { visit(i, item, nil); return nil })
		}
	}, client.InNamespace(b.namespace))
	for _, at := range wanted {
		for _, i := range at {
			if err != nil {
				visits.Go(func() error { return e.visitGot(ctx, objects[i], i, visit) })
				continue
			}
			visits.Go(func() error { visit(i, nil, nil); return nil })
		}
	}
}

// eachListed lists with reader page by page, the engine's page size to a
// page, each page into a copy of the empty list, and hands each listed object
// to fn as its page arrives; the next page is read while fn works through
// this one, no further ahead.
func (e *Engine) eachListed(ctx context.Context, reader client.Reader, list client.ObjectList, fn func(runtime.Object),
	opts ...client.ListOption) error {
	p := pager.New(func(ctx context.Context, page metav1.ListOptions) (runtime.Object, error) {
		into := list.DeepCopyObject().(client.ObjectList)
		err := reader.List(ctx, into, append(slices.Clip(opts), client.Limit(page.Limit), client.Continue(page.Continue))...)
		return into, err
	})
	p.PageSize = int64(cmp.Or(e.ListPageSize, defaultListPageSize))
	p.PageBufferSize = 0
	return p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		fn(obj)
		return nil
	})
}

// listKindOf is the kind of a list of gvk's objects.
func listKindOf(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	return gvk.GroupVersion().WithKind(gvk.Kind + "List")
}

// visitGot reads o with a GET and visits it.
func (e *Engine) visitGot(ctx context.Context, o Object, i int, visit visitFunc) error {
	existing, err := e.get(ctx, o)
	visit(i, existing, err)
	return nil
}

// get returns the object as it is: nil when it does not exist, or its kind
// is not served yet.
func (e *Engine) get(ctx context.Context, o Object) (*unstructured.Unstructured, error) {
	if o.Mapping == nil {
		return nil, nil
	}
	existing := &unstructured.Unstructured{}
	existing.SetGroupVersionKind(o.Object.GroupVersionKind())
	err := e.Client.Get(ctx, client.ObjectKeyFromObject(o.Object), existing)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return existing, nil
}

// Read returns the objects as they are, by reference (nil for one that does
// not exist), reading as the engine's identity: one LIST for a kind and
// namespace with several of them, a GET for each of the others.
func (e *Engine) Read(ctx context.Context, refs []ObjectRef) (map[ObjectRef]*unstructured.Unstructured, error) {
	objects := make([]Object, 0, len(refs))
	for _, ref := range refs {
		mapping, err := e.Client.RESTMapper().RESTMapping(ref.GroupKind)
		if err != nil {
			return nil, fmt.Errorf("looking up %s: %w", ref.GroupKind, err)
		}
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(mapping.GroupVersionKind)
		obj.SetNamespace(ref.Namespace)
		obj.SetName(ref.Name)
		objects = append(objects, Object{Input: Input{Object: obj}, Mapping: mapping, Resource: mapping.Resource.GroupResource()})
	}
	read := make([]*unstructured.Unstructured, len(objects))
	errs := make([]error, len(objects))
	e.readEach(ctx, objects, func(i int, existing *unstructured.Unstructured, err error) { read[i], errs[i] = existing, err })
	out := make(map[ObjectRef]*unstructured.Unstructured, len(objects))
	for i, o := range objects {
		if errs[i] != nil {
			return nil, fmt.Errorf("reading %s: %w", o.Ref(), errs[i])
		}
		out[o.Ref()] = read[i]
	}
	return out, nil
}

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

package membership

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/pager"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Parent is a parent object as a snapshot read it.
type Parent struct {
	Ref    ParentRef
	Object *metav1.PartialObjectMetadata
}

// Snapshot is every parent and every member of a cluster, read once, for
// clients that do not watch (a kubectl plugin). It answers the questions the
// Index and Parents answer from their caches.
type Snapshot struct {
	// Parents are sorted by kind, namespace and name.
	Parents []Parent
	// Failing are the types that could not be listed: their parents and
	// members are missing.
	Failing []TypeFailure

	members map[string][]Member
	types   []ResourceType
}

// SnapshotOptions say what a snapshot reads.
type SnapshotOptions struct {
	// Namespace limits the parents to one namespace; empty reads all.
	// Members are always read everywhere: one may lie outside its scope.
	Namespace string
	// ParentSelector, a label selector, limits the parents further.
	ParentSelector string
	// Parallel is how many lists run at once; 0 means 8.
	Parallel int
	// Progress, when set, hears how many types were listed out of how many.
	Progress func(done, total int)
}

// Read lists every type that supports list, once, for objects with the
// part-of label, and the parent types (Secrets, ConfigMaps, custom resources
// of labelled CRDs) for objects with the ID label.
func Read(ctx context.Context, opts Options, sopts SnapshotOptions) (*Snapshot, error) {
	lists, err := preferredResources(ctx, opts.Discovery)
	if lists == nil && err != nil {
		return nil, fmt.Errorf("discovering resource types: %w", err)
	}
	parentCRDs, err := parentTypes(ctx, opts)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{members: map[string][]Member{}, types: listableResources(lists)}
	jobs := make([]listJob, 0, len(s.types)+2)
	for _, rt := range s.types {
		jobs = append(jobs, listJob{rt: rt, label: applyset.PartOfLabel})
		if builtInParentKinds.Has(rt.GroupKind) || parentCRDs.Has(rt.Resource.GroupResource().String()) {
			jobs = append(jobs, listJob{rt: rt, label: applyset.IDLabel, selector: parentSelector(sopts.ParentSelector),
				namespace: sopts.Namespace})
		}
	}
	s.run(ctx, opts, sopts, jobs)
	slices.SortFunc(s.Parents, func(a, b Parent) int {
		return cmp.Or(cmp.Compare(a.Ref.Type.GroupKind.String(), b.Ref.Type.GroupKind.String()),
			cmp.Compare(a.Ref.Namespace, b.Ref.Namespace), cmp.Compare(a.Ref.Name, b.Ref.Name))
	})
	for id := range s.members {
		slices.SortFunc(s.members[id], compareMembers)
	}
	return s, nil
}

// parentTypes returns the resources (resource.group) of the CRDs labelled as parent types.
func parentTypes(ctx context.Context, opts Options) (sets.Set[string], error) {
	list, err := opts.Metadata.Resource(crdResource).List(ctx, metav1.ListOptions{LabelSelector: applyset.ParentTypeLabel})
	if err != nil {
		return nil, fmt.Errorf("listing the CRDs of parent types: %w", err)
	}
	out := sets.New[string]()
	for _, crd := range list.Items {
		out.Insert(crd.Name) // a CRD's name is <plural>.<group>
	}
	return out, nil
}

// listJob lists the objects of one type that carry a label (and match the selector).
type listJob struct {
	rt        ResourceType
	label     string
	selector  string
	namespace string
}

func parentSelector(extra string) string {
	if extra == "" {
		return applyset.IDLabel
	}
	return applyset.IDLabel + "," + extra
}

func (s *Snapshot) run(ctx context.Context, opts Options, sopts SnapshotOptions, jobs []listJob) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		done int
	)
	slots := make(chan struct{}, cmp.Or(sopts.Parallel, 8))
	for _, job := range jobs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			found := &listed{}
			err := listLabelled(ctx, opts, job, found.keep(job))
			var narrowed *TypeFailure
			if apierrors.IsForbidden(err) && job.rt.Namespaced && job.namespace == "" && sopts.Namespace != "" {
				// Who may read one namespace sees its members there, at least.
				narrowed = &TypeFailure{ResourceType: job.rt, Err: err, Namespace: sopts.Namespace}
				job.namespace = sopts.Namespace
				found = &listed{}
				err = listLabelled(ctx, opts, job, found.keep(job))
			}
			mu.Lock()
			defer mu.Unlock()
			done++
			if sopts.Progress != nil {
				sopts.Progress(done, len(jobs))
			}
			failed := func(f TypeFailure) {
				if !slices.ContainsFunc(s.Failing, func(had TypeFailure) bool { return had.ResourceType == job.rt }) {
					s.Failing = append(s.Failing, f)
				}
			}
			if err != nil {
				failed(TypeFailure{ResourceType: job.rt, Err: err})
				return
			}
			if narrowed != nil {
				failed(*narrowed)
			}
			s.Parents = append(s.Parents, found.parents...)
			for _, m := range found.members {
				s.members[m.SetID] = append(s.members[m.SetID], m)
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(s.Failing, func(a, b TypeFailure) int { return cmp.Compare(a.Resource.String(), b.Resource.String()) })
}

// metadataPageSize is how many objects' metadata one LIST returns: about
// 1 KB each, so that a set of 100,000 members is 20 requests, not the 200
// that pages of 500 took, which a plugin's client rate limit made wait.
const metadataPageSize = 5000

// listLabelled lists, page by page and within the list timeout, the metadata
// of the job's objects that carry its label, and hands each to keep as its
// page arrives.
func listLabelled(ctx context.Context, opts Options, job listJob, keep func(*metav1.PartialObjectMetadata)) error {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(opts.ListTimeout, 15*time.Second))
	defer cancel()
	resource := opts.Metadata.Resource(job.rt.Resource)
	p := pager.New(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		if job.namespace != "" && job.rt.Namespaced {
			return resource.Namespace(job.namespace).List(ctx, o)
		}
		return resource.List(ctx, o)
	})
	p.PageSize, p.PageBufferSize = metadataPageSize, 1
	return p.EachListItem(ctx, metav1.ListOptions{LabelSelector: cmp.Or(job.selector, job.label)}, func(obj runtime.Object) error {
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
			keep(m)
		}
		return nil
	})
}

// listed is what one list job found.
type listed struct {
	parents []Parent
	members []Member
}

// keep files each object the job lists as a parent or as a member. It keeps
// a copy of a parent's metadata, and of a member only what a Member holds,
// so that no page of the list outlives its reading: the metadata of a set of
// 100,000 members, managed fields and all, is hundreds of MiB.
func (l *listed) keep(job listJob) func(*metav1.PartialObjectMetadata) {
	return func(m *metav1.PartialObjectMetadata) {
		if job.label == applyset.IDLabel {
			l.parents = append(l.parents, Parent{Ref: ParentRef{Type: job.rt, Namespace: m.Namespace, Name: m.Name}, Object: m.DeepCopy()})
			return
		}
		l.members = append(l.members, memberOf(m.Labels[applyset.PartOfLabel], job.rt.GroupKind, job.rt.Resource, m))
	}
}

// Members returns the objects that claim the set with the given ID, sorted.
func (s *Snapshot) Members(setID string) []Member {
	return s.members[setID]
}

// TypeOf returns the listed resource type of a kind.
func (s *Snapshot) TypeOf(gk schema.GroupKind) (ResourceType, bool) {
	for _, rt := range s.types {
		if rt.GroupKind == gk {
			return rt, true
		}
	}
	return ResourceType{}, false
}

// TypeOfResource returns the listed resource type of a resource.
func (s *Snapshot) TypeOfResource(gr schema.GroupResource) (ResourceType, bool) {
	for _, rt := range s.types {
		if rt.Resource.GroupResource() == gr {
			return rt, true
		}
	}
	return ResourceType{}, false
}

// Facts are what Verify needs to know of parent p besides the parent itself,
// trusting the part-of labels applied by appliers.
func (s *Snapshot) Facts(p Parent, appliers sets.Set[string]) Facts {
	id := p.Object.Labels[applyset.IDLabel]
	return Facts{
		ParentUID: p.Object.UID, Members: s.Members(id), TypeOf: s.TypeOf, TypeOfResource: s.TypeOfResource,
		Appliers: appliers, Failing: s.Failing,
	}
}

// Verify verifies parent p as the operator does, from the snapshot.
func (s *Snapshot) Verify(p Parent, appliers Appliers) Verdict {
	parsed := applyset.ParseParent(p.Ref.Key(), p.Object.Labels, p.Object.Annotations)
	return Verify(parsed, s.Facts(p, appliers.Of(parsed.Tooling.Name)))
}

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

	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// The cache of sets may lag behind the reconciler's own writes: a source's
// change can wake a set before the cache has its last status, whose members
// are the proof of what the set applied. A reconcile of such a stale copy
// would take its own members for foreign objects. So the reconciler keeps
// the resourceVersion of its last write of each set, and reads the set from
// the API server when the cached copy is not that version. This saves a
// run on a stale copy in the common case; it is not what keeps the record
// whole: every write carries the version it was computed from (record.go),
// so a run on a stale copy it did not catch is refused and rebased.

// wrote records the resourceVersion a write of the set left it at.
func (r *Reconciler) wrote(set client.Object, resourceVersion string) {
	if resourceVersion != "" {
		r.written.Store(client.ObjectKeyFromObject(set), resourceVersion)
	}
}

// unknownVersion is what the reconciler remembers of a set after a write
// that may or may not have been made (its answer was lost): no cached copy
// is that version, so the next reconcile reads the set from the API server.
const unknownVersion = "unknown"

// unsure forgets which version the reconciler's last write of set left.
func (r *Reconciler) unsure(set client.Object) {
	r.written.Store(client.ObjectKeyFromObject(set), unknownVersion)
}

// read is the set as a reconcile acts on it: the cache's copy, or the API
// server's where the cache's may predate the reconciler's last write.
func (r *Reconciler) read(ctx context.Context, key client.ObjectKey) (applyv1alpha1.Set, error) {
	set := r.newSet()
	if err := r.client.Get(ctx, key, set); err != nil {
		return nil, err
	}
	return set, r.fresh(ctx, set)
}

// fresh replaces a cached set that may predate the reconciler's last write
// of it with the API server's copy. A copy written by someone else since
// costs one read, after which it is the version on record.
func (r *Reconciler) fresh(ctx context.Context, set applyv1alpha1.Set) error {
	key := client.ObjectKeyFromObject(set)
	last, ok := r.written.Load(key)
	if !ok || last.(string) == set.GetResourceVersion() {
		return nil
	}
	if err := r.reader.Get(ctx, key, set); err != nil {
		return err
	}
	r.written.Store(key, set.GetResourceVersion())
	return nil
}

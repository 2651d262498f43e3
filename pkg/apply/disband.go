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
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// DisbandOptions say which set to disband.
type DisbandOptions struct {
	// SetID is the ID the members carry.
	SetID string
	// Scope and Kinds are where the members are looked for: the parent's hints.
	Scope applyset.Scope
	Kinds sets.Set[schema.GroupKind]
	// Proven says which of the objects that carry the set's label the set
	// applied; only those are released, the others are reported Foreign. Nil
	// proves nothing.
	Proven Proof
	// DryRun previews the disband with server-side dry-run.
	DryRun bool
}

// Disband releases every member of a set, as found by its label in the
// set's kinds and namespaces and proven to be the set's, whether or not the
// set still declares it: the part-of label is removed and nothing else
// changes. Objects the proof does not cover are reported Foreign and left
// alone. It asks the API server
// first whether the engine's identity may list and patch the members, and
// changes nothing when it may not (*AccessError).
//
// The label goes with a merge patch, the one write of the engine that is not
// an apply: an apply drops a field only by applying again every other field
// its manager owns, and a member that is no longer declared has no
// declaration to apply. The patch carries the resourceVersion read, so a
// member that changed meanwhile is read again and still checked.
func (e *Engine) Disband(ctx context.Context, opts DisbandOptions) (ChangeSet, error) {
	members, denied, err := e.listMembers(ctx, opts.SetID, opts.Kinds, opts.Scope)
	if err != nil {
		return ChangeSet{DryRun: opts.DryRun}, err
	}
	cs := ChangeSet{DryRun: opts.DryRun}
	proven := make([]member, 0, len(members))
	perms := make([]Permission, 0, len(members))
	for _, m := range members {
		if !opts.Proven.proves(m.ref, m.obj) {
			cs.Changes = append(cs.Changes, foreign(m))
			continue
		}
		proven = append(proven, m)
		perms = append(perms, Permission{Verb: "patch", Resource: m.resource, Namespace: m.ref.Namespace})
	}
	if err := e.checkAccess(ctx, perms, denied...); err != nil {
		return ChangeSet{DryRun: opts.DryRun}, err
	}
	var errs []error
	for _, m := range proven {
		if err := e.release(ctx, m, opts); err != nil {
			errs = append(errs, fmt.Errorf("disbanding %s: %w", m.ref, err))
			cs.Changes = append(cs.Changes, failed(m.ref, err))
			continue
		}
		cs.Changes = append(cs.Changes, Change{Ref: m.ref, Action: Disbanded})
	}
	sortChanges(cs.Changes)
	return cs, errors.Join(errs...)
}

// releaseAttempts bounds the retries of a member that keeps changing.
const releaseAttempts = 3

// release removes the part-of label from one member while it still carries
// the set's ID.
func (e *Engine) release(ctx context.Context, m member, opts DisbandOptions) error {
	obj := m.obj
	for attempt := 1; ; attempt++ {
		if obj.Labels[applyset.PartOfLabel] != opts.SetID {
			return nil // it left the set meanwhile
		}
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null},"resourceVersion":%q}}`, applyset.PartOfLabel, obj.ResourceVersion)
		patchOpts := []client.PatchOption{client.FieldOwner(e.FieldManager)}
		if opts.DryRun {
			patchOpts = append(patchOpts, client.DryRunAll)
		}
		err := e.retryTransient(ctx, func() error {
			return e.Client.Patch(ctx, obj.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch)), patchOpts...)
		})
		if !apierrors.IsConflict(err) || attempt == releaseAttempts {
			return client.IgnoreNotFound(err)
		}
		fresh := &metav1.PartialObjectMetadata{}
		fresh.SetGroupVersionKind(obj.GroupVersionKind())
		if err := e.Client.Get(ctx, client.ObjectKeyFromObject(obj), fresh); err != nil {
			return client.IgnoreNotFound(err)
		}
		obj = fresh
	}
}

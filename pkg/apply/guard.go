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
)

// A guarded create applies an object the set has no record of without
// reading it first. The apply carries metadata.resourceVersion "1", a
// precondition no stored object meets (etcd counts revisions from 1, and
// every write moves past it): the API server creates the object when it is
// absent, and refuses with Conflict, changing nothing, when it exists. Only
// then is the object read and applied as every other one is, its owner
// checked and its fields compared. A new set's first apply so costs one
// request per object instead of a read and a write.
const guardResourceVersion = "1"

// guarding reports whether the apply creates unrecorded objects guarded. A
// preview reads every object, since what exists decides what it shows (and
// where it may run: a Namespace the set creates), and so does an apply of an
// approved plan, which writes only what the preview said it would.
func (opts ApplyOptions) guarding() bool {
	return opts.Recorded != nil && !opts.DryRun && opts.Only == nil
}

// guards reports whether o is created guarded: its kind is served, and it
// is not recorded as a member.
func (opts ApplyOptions) guards(o Object) bool {
	return o.Mapping != nil && !opts.Recorded.Has(o.Ref())
}

// existed reports whether a guarded create found its object existing: the
// failed precondition, or a conflict with the fields of an object's other
// managers, which the API server finds before it compares versions.
func existed(p objectPlan, err error) bool {
	return p.guarded && apierrors.IsConflict(err)
}

// writeExisting reads an object a guarded create found existing and
// applies it as an object that was read first.
func (e *Engine) writeExisting(ctx context.Context, o Object, opts ApplyOptions) written {
	existing, err := e.get(ctx, o)
	p := e.inspectOne(o, opts, existing, err)
	switch {
	case p.denied != nil:
		err := fmt.Errorf("it exists, but the set may not read it: %w", &AccessError{Missing: []Permission{*p.denied}})
		return written{change: changeOf(failed(p.Ref(), err)), err: err}
	case p.done != nil:
		return written{change: p.done, err: p.err}
	case p.leave:
		return e.findDrift(ctx, p, opts)
	}
	return e.write(ctx, p, opts)
}

// readGuarded reads the objects of the guarded plans, as an apply without
// guards would have, and reports whether there were any: a create the
// identity may not make may be of an object that exists, which an apply
// only patches.
func (e *Engine) readGuarded(ctx context.Context, plans []objectPlan, opts ApplyOptions) bool {
	var at []int
	var objects []Object
	for i, p := range plans {
		if p.guarded {
			at, objects = append(at, i), append(objects, p.Object)
		}
	}
	if len(at) == 0 {
		return false
	}
	for j, p := range e.inspectAll(ctx, objects, opts, false) {
		plans[at[j]] = p
	}
	return true
}

// accessDenied tells checkAccess's refusal from a check that failed.
func accessDenied(err error) bool {
	var denied *AccessError
	return errors.As(err, &denied)
}

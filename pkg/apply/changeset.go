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
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// ObjectRef identifies an object by group, kind, namespace and name (GKNN).
type ObjectRef struct {
	GroupKind schema.GroupKind
	Namespace string
	Name      string
}

func (r ObjectRef) String() string {
	return applyset.ObjectName(r.GroupKind, r.Namespace, r.Name)
}

// Action is what happened, or would happen in a dry run, to one object.
type Action string

const (
	// Created objects did not exist.
	Created Action = "Created"
	// Configured objects existed and the apply changed some of their fields.
	Configured Action = "Configured"
	// Unchanged objects already matched.
	Unchanged Action = "Unchanged"
	// Pruned objects were members no longer declared, and were deleted.
	Pruned Action = "Pruned"
	// Skipped objects were members no longer declared that were kept; Reason says why.
	Skipped Action = "Skipped"
	// Failed objects could not be applied; Reason says why.
	Failed Action = "Failed"
	// Foreign objects carry the set's part-of label although the set did not
	// apply them (Proof): they are left as they are; Reason says who wrote the label.
	Foreign Action = "Foreign"
	// Disbanded objects left the set: their part-of label was removed, nothing else changed.
	Disbanded Action = "Disbanded"
	// Recreated objects were deleted and created again, because the set
	// changed fields that may not change (Fields) and Force was set.
	Recreated Action = "Recreated"
	// Waiting objects were not applied, or not deleted, yet: they wait for
	// others to be ready, or to be gone; Reason says for what.
	Waiting Action = "Waiting"
)

// Change is the outcome for one object.
type Change struct {
	Ref    ObjectRef
	Action Action
	// Fields are the changed field paths of a Configured object, e.g. .spec.replicas.
	Fields []string
	// Reason explains a Skipped or Failed object, or a preview that could not be exact.
	Reason string
	// Going marks a Pruned object whose delete was accepted but which is
	// not gone yet (a finalizer holds it) while a later group of the prune
	// waits for it: it stays a member, so that the next prune waits for it
	// too, until a listing no longer finds it.
	Going bool
	// Unsure marks a Failed apply that had no answer (a connection cut, a
	// timeout): it may have been made, and the object may carry the set's
	// label. An inventory records it without a UID, to be proven as such.
	Unsure bool
	// LabelledBy names, for a Foreign object, the field managers that wrote
	// its part-of label and how, as its managedFields record them; empty
	// when they do not say.
	LabelledBy []applyset.LabelWriter
	// HandedOver names the legacy field managers (kubectl's client-side
	// apply) whose ownership the apply removed, or in a preview would
	// remove, once it had applied the object; Reason says what went.
	HandedOver []string
	// Object is the object as the apply left it (or, unchanged, as it was
	// read), with its status, for judging its health; nil in a preview and
	// when the apply failed. It comes without its metadata.managedFields, or
	// as ApplyOptions.Keep keeps it.
	Object *unstructured.Unstructured
	// Live and Preview are, in a preview, the object as it is (nil when it
	// does not exist) and as the dry-run apply answered it would be; nil
	// otherwise, and when the preview made no request (an unchanged object).
	Live, Preview *unstructured.Unstructured
}

// messageFields bounds the fields a message names: a large object can
// conflict on thousands.
const messageFields = 10

// Conflict is an apply that another field manager's ownership stopped.
type Conflict struct {
	Ref ObjectRef
	// Manager names the field managers that own the fields, comma-separated.
	Manager string
	Fields  []string

	managers []string
}

// Message says who owns what, and what to do about it.
func (c Conflict) Message() string {
	return fmt.Sprintf("%s: %s applied %s with other values than the set declares; change the set to match, "+
		"ask the owner to release them, or set spec.force to take them over", c.Ref, c.Manager, text.Summarize(c.Fields, messageFields))
}

// ChangeSet is the outcome of an apply, a prune or a disband.
type ChangeSet struct {
	Changes []Change
	// Conflicts are fields other appliers hold, which the apply left to them.
	Conflicts []Conflict
	// Drift are fields that managers had changed with update requests only
	// (kubectl edit, scale, controllers), taken back by the apply.
	Drift []Conflict
	// Forced are fields taken from other appliers because Force was set.
	Forced []Conflict
	// DriftLeft are fields that other managers changed in objects the apply
	// left as they are (ApplyOptions.LeaveDrift); Manager is "unknown"
	// for fields an update removed.
	DriftLeft []Conflict
	// DryRun is true when nothing was changed: the changes are a preview.
	DryRun bool
	// Intent is what the apply set out to write, a preview included.
	Intent Intent
	// Declared is a digest of every object the apply was given, as it
	// would be applied: equal declarations, equal digests. "" when the
	// apply stopped before it planned.
	Declared string
}

// Count returns how many changes have the action.
func (cs ChangeSet) Count(action Action) int {
	n := 0
	for _, c := range cs.Changes {
		if c.Action == action {
			n++
		}
	}
	return n
}

// Append adds the changes and conflicts of other.
func (cs *ChangeSet) Append(other ChangeSet) {
	cs.Changes = append(cs.Changes, other.Changes...)
	cs.Conflicts = append(cs.Conflicts, other.Conflicts...)
	cs.Drift = append(cs.Drift, other.Drift...)
	cs.Forced = append(cs.Forced, other.Forced...)
	cs.DriftLeft = append(cs.DriftLeft, other.DriftLeft...)
}

// kept is an object the apply left as its Change keeps it: what Keep keeps
// of it, else all but metadata.managedFields, which nothing judges after the
// write and which take half the memory of a small object.
func (o ApplyOptions) kept(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if o.Keep != nil {
		return o.Keep(obj)
	}
	unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
	return obj
}

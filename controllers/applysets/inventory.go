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
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// maxForeignItems bounds the foreign objects status names; it counts them all.
const maxForeignItems = 20

// maxLabelledBy is the API's bound on a foreign member's labelledBy.
const maxLabelledBy = 256

// ReasonForeignMembers is the reason of the Event when objects carry the set's label although the set did
// not apply them; they are left alone. A Warning, since something copies or
// writes the label: a controller copying its parent's labels onto what it
// creates, or a person.
const ReasonForeignMembers = "ForeignMembers"

// setMembers records the set's members: its inventory, their number and kinds.
func setMembers(status *applyv1alpha1.ApplySetStatus, inv inventory.Inventory) {
	status.Members = inv.Status()
	status.MemberCount = ptr.To(int32(inv.Len()))
	kinds := sets.New[schema.GroupKind]()
	for _, e := range inv.Entries() {
		kinds.Insert(e.Ref.GroupKind)
	}
	status.GroupKinds = splitKinds(applyset.FormatGroupKinds(kinds))
}

// foreignStatus counts the foreign objects and names the first of them; nil
// when there are none.
func foreignStatus(foreign []apply.Change) *applyv1alpha1.ForeignMembers {
	if len(foreign) == 0 {
		return nil
	}
	out := &applyv1alpha1.ForeignMembers{Count: int32(len(foreign))}
	for _, c := range foreign[:min(len(foreign), maxForeignItems)] {
		out.Items = append(out.Items, applyv1alpha1.ForeignMember{ObjectReference: ref(c.Ref), LabelledBy: text.Truncate(applyset.FormatWriters(c.LabelledBy), maxLabelledBy)})
	}
	return out
}

// recordForeign tells, once for each, of objects that newly carry the set's
// label without being its members.
func (r *Reconciler) recordForeign(set applyv1alpha1.Set, before *applyv1alpha1.ForeignMembers, o outcome) {
	known := sets.New[applyv1alpha1.ObjectReference]()
	if before != nil {
		for _, item := range before.Items {
			known.Insert(item.ObjectReference)
		}
	}
	var fresh []string
	for _, c := range o.foreign {
		if !known.Has(ref(c.Ref)) {
			fresh = append(fresh, c.Ref.String()+" ("+c.Reason+")")
		}
	}
	if len(fresh) == 0 {
		return
	}
	r.recorder.Eventf(set, nil, "Warning", ReasonForeignMembers, "Prune", "%s", text.Truncate(fmt.Sprintf(
		"Left alone %s: they carry the set's %s label, but the set did not apply them; declare one in the set to adopt it, "+
			"or remove its label", text.Summarize(fresh, 5), applyset.PartOfLabel), maxEventMessage))
}

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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Intent is what an apply sets out to write: for each object it would
// write, a digest of the request body. Two applies with the same Intent send
// the same requests; a person who approved one approved the other.
type Intent map[ObjectRef]string

// intentOf is the intent of plans: every object a real apply would write,
// those a preview cannot write included.
func intentOf(plans []objectPlan) Intent {
	intent := Intent{}
	for _, p := range plans {
		if (p.done == nil && !p.leave) || p.previewed {
			intent[p.Ref()] = bodyDigest(p.desired)
		}
	}
	return intent
}

// holdUnapproved keeps the writes of plans that only does not approve: an
// object it does not name, or whose body changed since, waits for the next
// approval instead.
func holdUnapproved(plans []objectPlan, only Intent) {
	if only == nil {
		return
	}
	for i, p := range plans {
		if (p.done != nil && !p.previewed) || p.leave {
			continue // no write, or only a dry run that looks for drift
		}
		switch approved, ok := only[p.Ref()]; {
		case !ok:
			plans[i].done = &Change{Ref: p.Ref(), Action: Waiting, Reason: "its change is not in the approved plan"}
		case approved != bodyDigest(p.desired):
			plans[i].done = &Change{Ref: p.Ref(), Action: Waiting, Reason: "it changed since the plan was approved"}
		}
	}
}

// declaredDigest is the digest of every planned object, as it would be
// applied (objectPlan.config).
func declaredDigest(plans []objectPlan) string {
	lines := make([]string, 0, len(plans))
	for _, p := range plans {
		lines = append(lines, p.Ref().String()+"\t"+p.config+"\n")
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// bodyDigest is the digest of an apply's request body. JSON encodes a map's
// keys in order, so equal objects have equal digests.
func bodyDigest(obj *unstructured.Unstructured) string {
	raw, err := json.Marshal(obj.Object)
	if err != nil {
		// An object that decoded from YAML always encodes; should one not,
		// no approval can name it and it waits.
		return "unencodable: " + err.Error()
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Deletes returns what the plan deletes, by object, with the UID each
// delete is conditioned on.
func (p *PrunePlan) Deletes() map[ObjectRef]types.UID {
	out := make(map[ObjectRef]types.UID, len(p.deletes))
	for _, m := range p.deletes {
		out[m.ref] = m.obj.UID
	}
	return out
}

// Preview reports the plan as a dry run of it would, sending nothing: every
// delete as Pruned, and what it keeps.
func (p *PrunePlan) Preview() ChangeSet {
	cs := ChangeSet{DryRun: true, Changes: slices.Clone(p.skipped)}
	for _, m := range p.deletes {
		cs.Changes = append(cs.Changes, Change{Ref: m.ref, Action: Pruned})
	}
	sortChanges(cs.Changes)
	return cs
}

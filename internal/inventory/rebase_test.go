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

package inventory

import (
	"maps"
	"strings"
	"testing"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// record reads "name=uid,..." as an inventory of ConfigMaps.
func record(s string) Inventory {
	var members []applyv1alpha1.Member
	for item := range strings.SplitSeq(s, ",") {
		if name, uid, ok := strings.Cut(item, "="); ok {
			members = append(members, member(name, uid))
		}
	}
	return FromStatus(members)
}

func names(inv Inventory) map[string]string {
	out := map[string]string{}
	for _, e := range inv.Entries() {
		out[e.Ref.Name] = string(e.UID)
	}
	return out
}

func TestRebase(t *testing.T) {
	tests := []struct {
		name             string
		base, next, live string
		want             string
	}{
		{name: "live is base: the run's record", base: "a=1,b=2", next: "a=1,c=3", live: "a=1,b=2", want: "a=1,c=3"},
		{name: "another run recorded a member since: it stays beside the run's",
			base: "a=1", next: "a=1,c=3", live: "a=1,d=4", want: "a=1,c=3,d=4"},
		{name: "another run dropped a member the run kept unchanged: it stays dropped",
			base: "a=1,b=2", next: "a=1,b=2,c=3", live: "a=1", want: "a=1,c=3"},
		{name: "the run pruned a member live still records as base did: it goes",
			base: "a=1,b=2", next: "a=1", live: "a=1,b=2,d=4", want: "a=1,d=4"},
		{name: "the run dropped a member that another run recreated since: the new one stays",
			base: "a=1,b=2", next: "a=1", live: "a=1,b=5", want: "a=1,b=5"},
		{name: "the run recreated a member: its UID wins", base: "a=1", next: "a=6", live: "a=1", want: "a=6"},
		{name: "the run learned a legacy member's UID", base: "a=", next: "a=7", live: "a=,d=4", want: "a=7,d=4"},
		{name: "a run that read nothing adds what it applied to live", base: "", next: "c=3", live: "a=1,b=2", want: "a=1,b=2,c=3"},
		{name: "nothing changed: live as it is", base: "a=1", next: "a=1", live: "a=1,b=2", want: "a=1,b=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rebase(record(tt.base), record(tt.next), record(tt.live))
			if want := names(record(tt.want)); !maps.Equal(names(got), want) {
				t.Errorf("Rebase = %v, want %v", names(got), want)
			}
			if !got.Equal(record(tt.want)) {
				t.Errorf("Equal is false for the same record")
			}
		})
	}
}

// A rebase onto the base it was computed from is the run's own record.
func FuzzRebaseOntoBase(f *testing.F) {
	f.Add("a=1,b=2", "a=1,c=3")
	f.Fuzz(func(t *testing.T, base, next string) {
		b, n := record(base), record(next)
		if got := Rebase(b, n, b); !got.Equal(n) {
			t.Errorf("Rebase(%q, %q, base) = %v, want %v", base, next, names(got), names(n))
		}
	})
}

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
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

var testOwner = Owner{Kind: "ApplySet", Name: "big", UID: "0b7c5c1e-0000-4000-8000-000000000001", Namespace: "team-a"}

// members returns n ConfigMap members of names prefix-0 .. prefix-(n-1).
func members(prefix string, n int) []applyv1alpha1.Member {
	out := make([]applyv1alpha1.Member, n)
	for i := range out {
		out[i] = applyv1alpha1.Member{ObjectReference: applyv1alpha1.ObjectReference{Kind: "ConfigMap", Namespace: "team-a",
			Name: fmt.Sprintf("%s-%d", prefix, i)}, UID: fmt.Sprintf("uid-%s-%d", prefix, i)}
	}
	return out
}

// chunksOf reads back a placement, as Load does from the chunks it finds.
func chunksOf(p Placed) Inventory {
	var all []applyv1alpha1.Member
	for _, c := range p.Chunks {
		all = append(all, c.Spec.Members...)
	}
	return FromStatus(all)
}

func TestPlace(t *testing.T) {
	layout := Layout{Inline: 10, PerChunk: 8}
	for _, tc := range []struct {
		name    string
		members int
		chunks  int // 0: inline
	}{
		{"none", 0, 0},
		{"at the inline bound", 10, 0},
		{"one over it", 11, 2},
		{"a power of two of chunks, averaging at most PerChunk", 33, 8},
		{"many", 1000, 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := FromStatus(members("cm", tc.members))
			p, err := layout.Place(inv, testOwner)
			if err != nil {
				t.Fatal(err)
			}
			if tc.chunks == 0 {
				if p.Status != nil || p.Chunks != nil || len(p.Members) != tc.members {
					t.Fatalf("placed %d members inline with status %v, want all %d inline", len(p.Members), p.Status, tc.members)
				}
				return
			}
			if p.Members != nil || len(p.Chunks) != tc.chunks || len(p.Status.Chunks) != tc.chunks {
				t.Fatalf("placed %d inline, %d chunks, want %d chunks", len(p.Members), len(p.Chunks), tc.chunks)
			}
			back := chunksOf(p)
			if !slices.Equal(back.Status(), inv.Status()) {
				t.Fatalf("the chunks hold %d members, not the %d placed", back.Len(), inv.Len())
			}
			for i, c := range p.Chunks {
				ref := p.Status.Chunks[i]
				if c.Name != ref.Name || int(*ref.Count) != len(c.Spec.Members) || ref.Digest != digest(c.Spec.Members) {
					t.Errorf("status names chunk %d as %s (%d, %s), which is %s (%d, %s)", i, ref.Name, *ref.Count, ref.Digest,
						c.Name, len(c.Spec.Members), digest(c.Spec.Members))
				}
				if c.Namespace != testOwner.Namespace || c.Labels[applyv1alpha1.InventoryOfLabel] != string(testOwner.UID) ||
					c.Spec.Set.UID != string(testOwner.UID) {
					t.Errorf("chunk %s is not the set's: %v %v %v", c.Name, c.Namespace, c.Labels, c.Spec.Set)
				}
			}
		})
	}
}

// A change of one member makes one new chunk, under a name of its own: the
// others keep their names and digests, and a name always holds one content.
func TestPlaceChangesOneChunkPerMember(t *testing.T) {
	layout := Layout{Inline: 10, PerChunk: 64}
	before := members("cm", 500)
	after := slices.Clone(before)
	after[123].UID = "another"
	p1, err1 := layout.Place(FromStatus(before), testOwner)
	p2, err2 := layout.Place(FromStatus(after), testOwner)
	if err := cmpErr(err1, err2); err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i := range p1.Status.Chunks {
		sameName := p1.Status.Chunks[i].Name == p2.Status.Chunks[i].Name
		if sameDigest := p1.Status.Chunks[i].Digest == p2.Status.Chunks[i].Digest; sameName != sameDigest {
			t.Fatalf("chunk %d: %s -> %s, digests %s -> %s: a name must change with its content", i,
				p1.Status.Chunks[i].Name, p2.Status.Chunks[i].Name, p1.Status.Chunks[i].Digest, p2.Status.Chunks[i].Digest)
		}
		if !sameName {
			changed++
		}
	}
	if changed != 1 {
		t.Fatalf("%d chunks changed for one member, want 1", changed)
	}
}

// Members whose names hash to one chunk make the layout double until every
// chunk holds at most Most, and fail clearly when no layout does.
func TestPlaceDoublesPastCollisions(t *testing.T) {
	var colliding []applyv1alpha1.Member
	for _, m := range members("x", 4000) {
		if bucketOf(testOwner.UID, m, 4) == 0 {
			colliding = append(colliding, m)
		}
	}
	colliding = colliding[:40]
	layout := Layout{Inline: 1, PerChunk: 10, Most: 12}
	p, err := layout.Place(FromStatus(colliding), testOwner)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Chunks) <= 4 {
		t.Fatalf("40 members that collide in 4 chunks stayed in %d", len(p.Chunks))
	}
	for _, c := range p.Chunks {
		if len(c.Spec.Members) > 12 {
			t.Fatalf("chunk %s holds %d members, over 12", c.Name, len(c.Spec.Members))
		}
	}
	if chunksOf(p).Len() != 40 {
		t.Fatalf("the chunks hold %d members, want 40", chunksOf(p).Len())
	}

}

func TestPlaceRefusesWhatNoLayoutHolds(t *testing.T) {
	_, err := Layout{Inline: 0, PerChunk: 1, Most: 1}.Place(FromStatus(members("cm", MaxChunks+1)), testOwner)
	if err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("placed %d members in %d chunks of 1: %v", MaxChunks+1, MaxChunks, err)
	}
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// 100,000 members of the longest names leave the set's own object a small
// status.inventory, and each chunk far below etcd's 1.5 MiB.
func TestPlaceBoundsWhatEachObjectHolds(t *testing.T) {
	all := members(strings.Repeat("n", 245), 100_000)
	for i := range all {
		all[i].Group, all[i].Kind, all[i].Namespace = strings.Repeat("g", 253), strings.Repeat("K", 63), strings.Repeat("s", 63)
		all[i].UID = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	}
	p, err := DefaultLayout.Place(FromStatus(all), testOwner)
	if err != nil {
		t.Fatal(err)
	}
	status, err := json.Marshal(p.Status)
	if err != nil {
		t.Fatal(err)
	}
	if len(status) > 160<<10 {
		t.Errorf("status.inventory takes %d bytes for %d chunks, over 160 KiB", len(status), len(p.Chunks))
	}
	largest := 0
	for _, c := range p.Chunks {
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, len(data))
	}
	if largest > 1<<20 {
		t.Errorf("a chunk takes %d bytes, over 1 MiB", largest)
	}
	t.Logf("100,000 members: %d chunks, status.inventory %d bytes, largest chunk %d bytes", len(p.Chunks), len(status), largest)
}

// Named keeps the name of a chunk whose members did not change, and names
// anew every other, the lost ones included: a name is written once.
func TestNamed(t *testing.T) {
	layout := Layout{Inline: 10, PerChunk: 64}
	before := members("cm", 500)
	first, err := layout.Place(FromStatus(before), testOwner)
	if err != nil {
		t.Fatal(err)
	}
	stored := first.Named(nil, "first").Status
	after := slices.Clone(before)
	after[123].UID = "another"
	next, err := layout.Place(FromStatus(after), testOwner)
	if err != nil {
		t.Fatal(err)
	}
	changed := -1
	for i := range next.Status.Chunks {
		if next.Status.Chunks[i].Digest != stored.Chunks[i].Digest {
			changed = i
		}
	}
	lost := (changed + 1) % len(stored.Chunks)
	next.Lost = []string{stored.Chunks[lost].Name}
	named := next.Named(stored, "second")
	renamed := 0
	for i, c := range named.Status.Chunks {
		if named.Chunks[i].Name != c.Name {
			t.Fatalf("chunk %d is %s, status names %s", i, named.Chunks[i].Name, c.Name)
		}
		same := c.Name == stored.Chunks[i].Name
		if want := c.Digest == stored.Chunks[i].Digest && i != lost; same != want {
			t.Errorf("chunk %d kept its name: %t, want %t", i, same, want)
		}
		if !same {
			renamed++
			if !strings.HasSuffix(c.Name, "-second") {
				t.Errorf("chunk %d named %s, not by this write", i, c.Name)
			}
		}
	}
	if renamed != 2 {
		t.Errorf("%d chunks named anew, want 2: the changed one and the lost one", renamed)
	}
	if got := next.Status.Chunks[lost].Name; got == named.Status.Chunks[lost].Name {
		t.Error("Named changed the placement it was given")
	}
}

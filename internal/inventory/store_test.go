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
	"context"
	"errors"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// Load proves members only from chunks that hold what status records for
// them: a chunk missing, of another set, or whose members are not those of
// the digest status names is lost, and the members of the others are kept.
func TestLoadChecksEachChunk(t *testing.T) {
	p, err := Layout{Inline: 10, PerChunk: 16}.Place(FromStatus(members("cm", 100)), testOwner)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Chunks) < 4 {
		t.Fatalf("%d chunks, want 4 or more", len(p.Chunks))
	}
	status := &applyv1alpha1.ApplySetStatus{Inventory: p.Status}
	tests := []struct {
		name   string
		damage func(chunks []*applyv1alpha1.ApplySetInventory) []*applyv1alpha1.ApplySetInventory
		lost   []string
	}{
		{name: "whole", damage: func(c []*applyv1alpha1.ApplySetInventory) []*applyv1alpha1.ApplySetInventory { return c }},
		{name: "one missing", lost: []string{p.Chunks[1].Name},
			damage: func(c []*applyv1alpha1.ApplySetInventory) []*applyv1alpha1.ApplySetInventory {
				return slices.Delete(c, 1, 2)
			}},
		{name: "one of another set", lost: []string{p.Chunks[2].Name},
			damage: func(c []*applyv1alpha1.ApplySetInventory) []*applyv1alpha1.ApplySetInventory {
				c[2].Spec.Set.UID = "another"
				return c
			}},
		{name: "one overwritten with other members", lost: []string{p.Chunks[3].Name},
			damage: func(c []*applyv1alpha1.ApplySetInventory) []*applyv1alpha1.ApplySetInventory {
				c[3].Spec.Members = c[3].Spec.Members[1:]
				return c
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var objs []client.Object
			want := 0
			for _, c := range tt.damage(deepCopies(p.Chunks)) {
				objs = append(objs, c)
			}
			for i, c := range p.Chunks {
				if !slices.Contains(tt.lost, c.Name) {
					want += int(*p.Status.Chunks[i].Count)
				}
			}
			c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(objs...).Build()
			inv, err := Load(context.Background(), c, status, testOwner.UID)
			var lost *LostChunksError
			switch {
			case tt.lost == nil && err != nil:
				t.Fatalf("Load: %v", err)
			case tt.lost != nil && (!errors.As(err, &lost) || !slices.Equal(lost.Names, tt.lost)):
				t.Fatalf("Load: %v, want the chunks %v lost", err, tt.lost)
			}
			if inv.Len() != want {
				t.Errorf("%d members proven, want %d", inv.Len(), want)
			}
		})
	}
}

func deepCopies(chunks []*applyv1alpha1.ApplySetInventory) []*applyv1alpha1.ApplySetInventory {
	out := make([]*applyv1alpha1.ApplySetInventory, 0, len(chunks))
	for _, c := range chunks {
		out = append(out, c.DeepCopy())
	}
	return out
}

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := applyv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

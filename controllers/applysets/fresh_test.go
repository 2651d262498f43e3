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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// serverCopy is the API server's copy of one set, counting its reads.
type serverCopy struct {
	client.Reader
	set   *applyv1alpha1.ApplySet
	reads int
}

func (s *serverCopy) Get(_ context.Context, _ client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	s.reads++
	s.set.DeepCopyInto(obj.(*applyv1alpha1.ApplySet))
	return nil
}

func TestFreshReadsPastAStaleCache(t *testing.T) {
	withVersion := func(rv string, members ...string) *applyv1alpha1.ApplySet {
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", ResourceVersion: rv}}
		for _, m := range members {
			set.Status.Members = append(set.Status.Members, applyv1alpha1.Member{ObjectReference: applyv1alpha1.ObjectReference{Name: m}})
		}
		return set
	}
	tests := []struct {
		name        string
		written     string // the version the reconciler's last write left; "" for none
		cached      *applyv1alpha1.ApplySet
		wantReads   int
		wantMembers int
	}{
		{name: "never written: the cache is all there is", cached: withVersion("5"), wantReads: 0},
		{name: "the cache has the last write", written: "7", cached: withVersion("7", "x"), wantReads: 0, wantMembers: 1},
		{name: "the cache predates the last write", written: "7", cached: withVersion("5"), wantReads: 1, wantMembers: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := &serverCopy{set: withVersion("7", "x")}
			r := &Reconciler{reader: server}
			if tt.written != "" {
				r.wrote(tt.cached, tt.written)
			}
			set := tt.cached.DeepCopy()
			if err := r.fresh(context.Background(), set); err != nil {
				t.Fatal(err)
			}
			if server.reads != tt.wantReads || len(set.Status.Members) != tt.wantMembers {
				t.Errorf("reads %d, members %d; want %d, %d", server.reads, len(set.Status.Members), tt.wantReads, tt.wantMembers)
			}
			// The copy read is on record: the next reconcile of it reads nothing.
			server.reads = 0
			if err := r.fresh(context.Background(), set); err != nil || server.reads != 0 {
				t.Errorf("a second look read %d times (%v)", server.reads, err)
			}
		})
	}
}

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

package depwatch

import (
	"context"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// fakeAPI is a metadata API server per user: lists of what a user may not
// read are refused, and every list is remembered with whom it acted as.
type fakeAPI struct {
	mu      sync.Mutex
	refused map[string]bool // users
	lists   []string        // "user namespace fieldSelector"
}

func (f *fakeAPI) clientFor(user string) (metadata.Interface, error) {
	client := metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())
	client.PrependReactor("list", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		restrictions := action.(clienttesting.ListAction).GetListRestrictions()
		f.lists = append(f.lists, user+" "+action.GetNamespace()+" "+restrictions.Fields.String())
		if f.refused[user] {
			return true, nil, apierrors.NewForbidden(action.GetResource().GroupResource(), "", nil)
		}
		return true, &metav1.List{}, nil
	})
	return client, nil
}

func target(user, namespace, name string) Target {
	return Target{User: user, Resource: configMaps, Namespace: namespace, Name: name}
}

func newTestWatches(t *testing.T, api *fakeAPI, limits Limits) *Watches[string] {
	t.Helper()
	w := New[string](api.clientFor, func(string) {}, limits)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w.Start(ctx)
	return w
}

func TestWatchesBoundedPerSetNamespaceAndInAll(t *testing.T) {
	w := newTestWatches(t, &fakeAPI{}, Limits{PerSet: 2, PerNamespace: 3, Total: 4})
	ctx := context.Background()
	a1, a2, a3 := target("sa-a", "team", "a1"), target("sa-a", "team", "a2"), target("sa-a", "team", "a3")

	unwatched := w.Want(ctx, "team/a", "team", []Target{a1, a2, a3}, true)
	if len(unwatched) != 1 || !strings.Contains(unwatched[a3], "the most one set may") {
		t.Errorf("a set naming three objects with room for two: not watched %v; want the third refused per set", unwatched)
	}
	b1, b2 := target("sa-b", "team", "b1"), target("sa-b", "team", "b2")
	unwatched = w.Want(ctx, "team/b", "team", []Target{b1, b2}, true)
	if len(unwatched) != 1 || !strings.Contains(unwatched[b2], "--max-dependency-watches-per-namespace") {
		t.Errorf("a namespace's fourth watch with room for three: not watched %v; want it refused per namespace", unwatched)
	}
	// Another namespace shares what it can: a watch it joins costs no room in all.
	shared, c1, c2 := a1, target("sa-c", "other", "c1"), target("sa-c", "other", "c2")
	unwatched = w.Want(ctx, "other/c", "other", []Target{shared, c1}, true)
	if len(unwatched) != 0 || w.Len() != 4 {
		t.Errorf("not watched %v, %d watches; want a shared watch and a fourth", unwatched, w.Len())
	}
	unwatched = w.Want(ctx, "other/d", "other", []Target{c2}, true)
	if !strings.Contains(unwatched[c2], "--max-dependency-watches)") {
		t.Errorf("a fifth watch with room for four: not watched %v; want it refused in all", unwatched)
	}

	// a lets go of a2: its watch stops and makes room; a1 stays, c shares it.
	w.Want(ctx, "team/a", "team", []Target{a1}, true)
	if unwatched := w.Want(ctx, "other/d", "other", []Target{c2}, true); len(unwatched) != 0 {
		t.Errorf("a watch let go makes room: not watched %v", unwatched)
	}
	for _, set := range []string{"team/a", "team/b", "other/c", "other/d"} {
		w.Release(set)
	}
	if w.Len() != 0 {
		t.Errorf("%d watches after every set let go; want none", w.Len())
	}
}

func TestWatchesActAsTheSetsIdentityOnOneObject(t *testing.T) {
	api := &fakeAPI{refused: map[string]bool{"system:serviceaccount:team:reader": true}}
	w := newTestWatches(t, api, Limits{})
	ctx := context.Background()
	readable, refused := target("system:serviceaccount:team:default", "team", "settings"), target("system:serviceaccount:team:reader", "team", "creds")

	unwatched := w.Want(ctx, "team/web", "team", []Target{readable, refused}, true)
	if len(unwatched) != 1 || !strings.Contains(unwatched[refused], "it cannot be listed") {
		t.Errorf("an object its identity may not list: not watched %v; want it refused, saying why", unwatched)
	}
	if w.Len() != 1 {
		t.Errorf("%d watches; want the readable object's", w.Len())
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	for _, want := range []string{"system:serviceaccount:team:default team metadata.name=settings",
		"system:serviceaccount:team:reader team metadata.name=creds"} {
		found := false
		for _, l := range api.lists {
			found = found || l == want
		}
		if !found {
			t.Errorf("lists %q; want %q: as the set's identity, of one object", api.lists, want)
		}
	}
}

func TestWatchesWakeOnlyWaitingSets(t *testing.T) {
	var mu sync.Mutex
	var woken []string
	w := New[string]((&fakeAPI{}).clientFor, func(set string) {
		mu.Lock()
		defer mu.Unlock()
		woken = append(woken, set)
	}, Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.Start(ctx)
	cert := target("sa", "team", "web-tls")
	if unwatched := w.Want(ctx, "team/waiting", "team", []Target{cert}, true); len(unwatched) != 0 {
		t.Fatalf("not watched %v", unwatched)
	}
	w.Want(ctx, "team/applied", "team", []Target{cert}, false)

	w.mu.Lock()
	ws := w.watches[cert]
	w.mu.Unlock()
	ws.wakeWaiting(w.wake)
	mu.Lock()
	defer mu.Unlock()
	if len(woken) != 1 || woken[0] != "team/waiting" {
		t.Errorf("woke %q; want the waiting set alone", woken)
	}
}

func TestWatchesWaitForStart(t *testing.T) {
	w := New[string]((&fakeAPI{}).clientFor, func(string) {}, Limits{})
	unwatched := w.Want(context.Background(), "team/web", "team", []Target{target("sa", "team", "x")}, true)
	if len(unwatched) != 1 || w.Len() != 0 {
		t.Errorf("before Start: not watched %v, %d watches; want nothing watched", unwatched, w.Len())
	}
}

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
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// watchedOf is an object of namespace team that a set depends on.
func watchedOf(group, kind, resource, name string) watchedObject {
	return watchedObject{mapping: &apimeta.RESTMapping{GroupVersionKind: schema.GroupVersionKind{Group: group, Version: "v1", Kind: kind},
		Resource: schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource}, Scope: apimeta.RESTScopeNamespace},
		key: types.NamespacedName{Namespace: "team", Name: name}}
}

// newTestWatches are watches over a fake API server that refuses to list
// secrets, with room for two kinds, and the ApplySet queue they wake.
func newTestWatches(t *testing.T) (*dependencyWatches, workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	t.Helper()
	client := metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())
	client.PrependReactor("list", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetResource().Resource == "secrets" {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", nil)
		}
		return true, &metav1.List{}, nil
	})
	w := newDependencyWatches(client, 2)
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	t.Cleanup(q.ShutDown)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := w.source(applyv1alpha1.SetKindApplySet).Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	return w, q
}

func TestDependencyWatchesStartAndStop(t *testing.T) {
	w, _ := newTestWatches(t)
	ctx := context.Background()
	a := setKey{kind: applyv1alpha1.SetKindApplySet, NamespacedName: types.NamespacedName{Namespace: "team", Name: "a"}}
	b := setKey{kind: applyv1alpha1.SetKindApplySet, NamespacedName: types.NamespacedName{Namespace: "team", Name: "b"}}
	cert := watchedOf("example.com", "Certificate", "certificates", "web-tls")
	cm := watchedOf("", "ConfigMap", "configmaps", "settings")
	deploy := watchedOf("apps", "Deployment", "deployments", "db")
	secret := watchedOf("", "Secret", "secrets", "creds")

	if unwatched := w.want(ctx, a, []watchedObject{cert, cm}, true); len(unwatched) != 0 {
		t.Fatalf("two kinds within the limit of two: not watched %v", unwatched)
	}
	unwatched := w.want(ctx, b, []watchedObject{cert, deploy}, true)
	if why := unwatched[schema.GroupKind{Group: "apps", Kind: "Deployment"}]; !strings.Contains(why, "its limit (--max-watched-dependency-kinds)") {
		t.Errorf("a third kind: %v; want it refused at the limit", unwatched)
	}
	if len(unwatched) != 1 {
		t.Errorf("a kind already watched is shared: not watched %v", unwatched)
	}

	// a stops depending on ConfigMaps: their watch stops, and makes room.
	w.want(ctx, a, []watchedObject{cert}, true)
	if kinds := w.watchedKinds(); len(kinds) != 1 {
		t.Fatalf("watched %v; want only Certificates", kinds)
	}
	if unwatched := w.want(ctx, b, []watchedObject{cert, secret}, true); !strings.Contains(unwatched[schema.GroupKind{Kind: "Secret"}], "cannot list secrets") {
		t.Errorf("a kind the operator may not list: %v; want it not watched, saying why", unwatched)
	}
	w.release(a)
	w.release(b)
	if kinds := w.watchedKinds(); len(kinds) != 0 {
		t.Errorf("watched %v after every set let go; want none", kinds)
	}
}

func TestDependencyWatchesWakeOnlyWaitingSets(t *testing.T) {
	w, q := newTestWatches(t)
	ctx := context.Background()
	waiting := setKey{kind: applyv1alpha1.SetKindApplySet, NamespacedName: types.NamespacedName{Namespace: "team", Name: "waiting"}}
	applied := setKey{kind: applyv1alpha1.SetKindApplySet, NamespacedName: types.NamespacedName{Namespace: "team", Name: "applied"}}
	cert := watchedOf("example.com", "Certificate", "certificates", "web-tls")
	w.want(ctx, waiting, []watchedObject{cert}, true)
	w.want(ctx, applied, []watchedObject{cert}, false)
	gk := schema.GroupKind{Group: "example.com", Kind: "Certificate"}

	other := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "other"}}
	w.changed(gk, other)
	if q.Len() != 0 {
		t.Fatalf("a change of an object no set depends on woke %d sets", q.Len())
	}
	w.changed(gk, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web-tls"}})
	if q.Len() != 1 {
		t.Fatalf("woke %d sets; want the waiting one", q.Len())
	}
	if req, _ := q.Get(); req.NamespacedName != waiting.NamespacedName {
		t.Errorf("woke %v; want %v", req, waiting)
	}
}

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
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// watch is the watch of one object and the sets it wakes: each set with
// whether it waits, under a lock of the watch's own.
type watch[S comparable] struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	sets   map[S]bool
}

// selector selects t's object alone: every kind serves metadata.name.
func selector(t Target) string {
	return fields.OneTermEqualSelector("metadata.name", t.Name).String()
}

// probe lists t's object as the watch's identity, and says why a watch
// could not run: an informer whose list is refused retries for ever.
func probe(ctx context.Context, client metadata.Interface, t Target) string {
	_, err := client.Resource(t.Resource).Namespace(t.Namespace).List(ctx, metav1.ListOptions{FieldSelector: selector(t), Limit: 1})
	if err != nil {
		return "it cannot be listed: " + err.Error()
	}
	return ""
}

// start runs the watch of t within base. Its first list delivers the
// object: that wakes the waiting sets once, which covers a change between
// their read and the watch's start.
func start[S comparable](base context.Context, client metadata.Interface, t Target, wake func(S)) (*watch[S], error) {
	ctx, cancel := context.WithCancel(base)
	ws := &watch[S]{cancel: cancel, sets: map[S]bool{}}
	informer := metadatainformer.NewFilteredMetadataInformer(client, t.Resource, t.Namespace, 0, cache.Indexers{},
		func(o *metav1.ListOptions) { o.FieldSelector = selector(t) }).Informer()
	changed := func(any) { ws.wakeWaiting(wake) }
	logger := log.FromContext(base).WithValues("object", t.String(), "user", t.User)
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: changed, DeleteFunc: changed,
		UpdateFunc: func(_, obj any) { changed(obj) }}); err != nil {
		cancel()
		return nil, err
	}
	if err := informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		logger.Error(err, "Watching an object sets depend on")
	}); err != nil {
		cancel()
		return nil, err
	}
	go informer.RunWithContext(ctx)
	logger.V(1).Info("Watching an object sets depend on")
	return ws, nil
}

// mark records whether set waits.
func (ws *watch[S]) mark(set S, waiting bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.sets[set] = waiting
}

// leave forgets set, and stops the watch when no set is left: true then.
func (ws *watch[S]) leave(set S) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	delete(ws.sets, set)
	if len(ws.sets) > 0 {
		return false
	}
	ws.cancel()
	return true
}

func (ws *watch[S]) wakeWaiting(wake func(S)) {
	ws.mu.Lock()
	var waiting []S
	for set, w := range ws.sets {
		if w {
			waiting = append(waiting, set)
		}
	}
	ws.mu.Unlock()
	for _, set := range waiting {
		wake(set)
	}
}

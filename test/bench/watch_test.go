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

package bench

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// watchSet waits until done holds for set, which it keeps up to date from a
// watch of that one object. done is also asked every 20 ms between events,
// for conditions outside the object. Polling a set with GETs instead would
// read it whole from etcd each time: for a set of 1,000 inline objects that
// costs the API server more CPU than the operator's own writes.
func watchSet(ctx context.Context, set applyv1alpha1.Set, timeout time.Duration, done func() bool) error {
	wc, err := watchClient()
	if err != nil {
		return err
	}
	gvk, err := apiutil.GVKForObject(set, scheme)
	if err != nil {
		return err
	}
	obj, err := scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// With no resource version, the watch opens with the set as it is now.
	w, err := wc.Watch(ctx, obj.(client.ObjectList), client.InNamespace(set.GetNamespace()),
		client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", set.GetName())})
	if err != nil {
		return err
	}
	defer w.Stop()
	seen := false
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("the watch of %s ended", set.GetName())
			}
			if ev.Type == watch.Error {
				return fmt.Errorf("watching %s: %v", set.GetName(), ev.Object)
			}
			if ev.Type == watch.Added || ev.Type == watch.Modified {
				// The event's object is of the set's type: copy it over.
				reflect.ValueOf(set).Elem().Set(reflect.ValueOf(ev.Object).Elem())
				seen = true
			}
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("%s: condition not met within %s", set.GetName(), timeout)
		}
		if seen && done() {
			return nil
		}
	}
}

// watchUntil watches the objects of list that opts select, opening the
// watch again whenever the API server ends it (one that falls behind is
// ended), and hands each object an event carries to seen until seen says
// all are there. After BENCH_TIMEOUT (15 minutes) it fails, saying stuck().
// Polling with LISTs instead would cost the API server more than the
// objects it waits for.
func watchUntil(ctx context.Context, b *testing.B, list client.ObjectList, opts []client.ListOption,
	seen func(runtime.Object) (all bool), stuck func() string) {
	b.Helper()
	wc, err := watchClient()
	if err != nil {
		b.Fatal(err)
	}
	timeout := envDuration("BENCH_TIMEOUT", 15*time.Minute)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var w watch.Interface
	defer func() {
		if w != nil {
			w.Stop()
		}
	}()
	for {
		if w == nil {
			// Opened without a resource version, a watch starts with the objects as they are.
			if w, err = wc.Watch(ctx, list, opts...); err != nil {
				if ctx.Err() != nil {
					b.Fatalf("after %s: %s", timeout, stuck())
				}
				b.Fatal(err)
			}
		}
		select {
		case ev, open := <-w.ResultChan():
			if !open || ev.Type == watch.Error {
				w.Stop()
				w = nil
				continue
			}
			if seen(ev.Object) {
				return
			}
		case <-ctx.Done():
			b.Fatalf("after %s: %s", timeout, stuck())
		}
	}
}

// watchClient is made once: a new client would discover the API again,
// with requests the figures would count.
var watchClient = sync.OnceValues(func() (client.WithWatch, error) {
	return client.NewWithWatch(cp.Config, client.Options{Scheme: scheme})
})

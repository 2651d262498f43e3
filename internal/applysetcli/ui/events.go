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

package ui

import (
	"cmp"
	"context"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// eventsShown is the most Events a set's page lists, the latest first.
const eventsShown = 50

var eventsResource = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// event is an Event about a set's parent, as a page lists it.
type event struct {
	Type, Reason, Message string
	Count                 int64
	Last                  time.Time
}

// eventsAbout selects the Events about the parent ref, in the namespace
// recorders put them in: its own, or default for a cluster-scoped parent.
func eventsAbout(ref membership.ParentRef) (string, metav1.ListOptions) {
	selector := fields.Set{"involvedObject.kind": ref.Type.GroupKind.Kind, "involvedObject.name": ref.Name}
	if ref.Namespace != "" {
		selector["involvedObject.namespace"] = ref.Namespace
	}
	return cmp.Or(ref.Namespace, metav1.NamespaceDefault), metav1.ListOptions{FieldSelector: selector.String()}
}

// eventsOf lists the Events about the parent ref, the latest first: those the
// operator and anyone else recorded, in its namespace (default for a
// cluster-scoped parent, where recorders put them).
func eventsOf(ctx context.Context, c dynamic.Interface, ref membership.ParentRef) ([]event, error) {
	namespace, opts := eventsAbout(ref)
	opts.Limit = 500
	list, err := c.Resource(eventsResource).Namespace(namespace).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make([]event, 0, len(list.Items))
	for _, item := range list.Items {
		out = append(out, eventOf(item))
	}
	slices.SortStableFunc(out, func(a, b event) int { return b.Last.Compare(a.Last) })
	return out[:min(len(out), eventsShown)], nil
}

// eventOf reads a core Event, whichever API recorded it: events.k8s.io
// keeps its time and count in eventTime and series.
func eventOf(u unstructured.Unstructured) event {
	e := event{}
	e.Type, _, _ = unstructured.NestedString(u.Object, "type")
	e.Reason, _, _ = unstructured.NestedString(u.Object, "reason")
	e.Message, _, _ = unstructured.NestedString(u.Object, "message")
	e.Count, _, _ = unstructured.NestedInt64(u.Object, "count")
	if n, ok, _ := unstructured.NestedInt64(u.Object, "series", "count"); ok {
		e.Count = n
	}
	for _, at := range [][]string{{"series", "lastObservedTime"}, {"lastTimestamp"}, {"eventTime"}, {"metadata", "creationTimestamp"}} {
		if s, ok, _ := unstructured.NestedString(u.Object, at...); ok && s != "" {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				e.Last = t
				break
			}
		}
	}
	e.Count = max(e.Count, 1)
	return e
}

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
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

const (
	// mostWatches bounds the watches one page opens: the parent, its
	// Events, and its members' kinds in each of its namespaces.
	mostWatches = 32
	// settle gathers the changes of one moment (a rollout, an apply of many
	// members) into one message, so the page reloads its part once.
	settle = 300 * time.Millisecond
	// keepAlive is how often an idle stream says it is still there.
	keepAlive = 20 * time.Second
)

// watched is one watch a set's page follows.
type watched struct {
	what     string // as a notice names it
	resource schema.GroupVersionResource
	opts     metav1.ListOptions
	ns       string
}

// serveChanges streams server-sent events to a set's page: "changed" when
// the parent, a member or an Event about the parent changed, as the user
// watches them. The page then reads its live part again. Watches the user
// may not open are named in a "notice". The stream ends when a watch does;
// the page opens it again. It is asked for by POST, so that the guard sees
// its Origin and token as for any request that acts with the user's rights.
func (p *pages) serveChanges(w http.ResponseWriter, r *http.Request) {
	ref, err := p.setRef(r)
	if err != nil {
		http.Error(w, err.Error(), statusOf(err))
		return
	}
	ctx := r.Context()
	targets, left, err := p.watchesOf(ctx, ref)
	if err != nil {
		http.Error(w, err.Error(), statusOf(err))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	changed := make(chan struct{}, 1)
	ended := make(chan error, len(targets))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, t := range targets {
		iface, err := p.open(ctx, t)
		if err != nil {
			writeEvent(w, "notice", fmt.Sprintf("Live updates do not follow %s: %v", t.what, err))
			continue
		}
		go follow(iface, changed, ended)
	}
	if left > 0 {
		writeEvent(w, "notice", fmt.Sprintf("Live updates follow %d kinds and namespaces of the set; %d more are not followed: reload the page to see them",
			len(targets), left))
	}
	writeEvent(w, "ready", "")
	_ = rc.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case err := <-ended:
			writeEvent(w, "reconnect", err.Error())
			_ = rc.Flush()
			return
		case <-tick.C:
			fmt.Fprint(w, ": still here\n\n")
		case <-changed:
			select { // what follows within settle is the same change
			case <-time.After(settle):
			case <-ctx.Done():
				return
			}
			writeEvent(w, "changed", "")
		}
		if err := rc.Flush(); err != nil {
			return // the page went away
		}
	}
}

// follow signals changed on every event of w, and ended when w ends.
func follow(w watch.Interface, changed chan<- struct{}, ended chan<- error) {
	defer w.Stop()
	for e := range w.ResultChan() {
		if e.Type == watch.Error {
			ended <- fmt.Errorf("a watch failed: %v", e.Object)
			return
		}
		select {
		case changed <- struct{}{}:
		default: // a change is already waiting to be sent
		}
	}
	ended <- fmt.Errorf("a watch ended")
}

// open starts a watch from now: it lists one item for the collection's
// resourceVersion, so the watch does not replay what is there.
func (p *pages) open(ctx context.Context, t watched) (watch.Interface, error) {
	res := p.c.Metadata.Resource(t.resource).Namespace(t.ns)
	opts := t.opts
	opts.Limit = 1
	list, err := res.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	opts = t.opts
	opts.ResourceVersion = list.GetResourceVersion()
	return res.Watch(ctx, opts)
}

// watchesOf are the watches a set's page follows: its parent, its Events
// and, by the set's label, its members' kinds where the set may have
// members. Beyond mostWatches, it says how many are left out.
func (p *pages) watchesOf(ctx context.Context, ref membership.ParentRef) ([]watched, int, error) {
	meta, err := p.c.Metadata.Resource(ref.Type.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, 0, err
	}
	parent := applyset.ParseParent(ref.Key(), meta.GetLabels(), meta.GetAnnotations())
	byName := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", ref.Name).String()}
	eventsNamespace, events := eventsAbout(ref)
	out := []watched{
		{what: "the parent", resource: ref.Type.Resource, ns: ref.Namespace, opts: byName},
		{what: "its Events", resource: eventsResource, ns: eventsNamespace, opts: events},
	}
	if parent.ID == "" {
		return out, 0, nil
	}
	members := metav1.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{applyset.PartOfLabel: parent.ID}).String()}
	namespaces := append([]string{ref.Namespace}, slices.Sorted(slices.Values(parent.Scope.AdditionalNamespaces.UnsortedList()))...)
	for _, gk := range slices.SortedFunc(slices.Values(parent.GroupKinds.UnsortedList()), func(a, b schema.GroupKind) int {
		return cmp.Compare(a.String(), b.String())
	}) {
		mapping, err := p.c.Mapper.RESTMapping(gk)
		if err != nil {
			continue // a kind the cluster no longer serves has no members to follow
		}
		scoped := namespaces
		if mapping.Scope.Name() != "namespace" || ref.Namespace == "" {
			scoped = []string{""}
		}
		for _, ns := range scoped {
			out = append(out, watched{what: gk.String() + cli.InNamespace(ns), resource: mapping.Resource, ns: ns, opts: members})
		}
	}
	return out[:min(len(out), mostWatches)], max(0, len(out)-mostWatches), nil
}

// writeEvent writes one server-sent event, its data on one line.
func writeEvent(w io.Writer, name, data string) {
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, strings.Join(strings.Fields(data), " "))
}

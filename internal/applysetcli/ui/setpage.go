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
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/parents"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// A set's page is sent in two parts. Its head, what the parent alone says
// (its name, namespace, and for one of the operator's sets its conditions
// and plan), goes at once, so the browser paints it while the members are
// listed, which takes seconds for a set of 100,000; the rest follows, or
// what failed meanwhile, in the page, as its status is already sent.

// setHead is what a set's page shows before its members are read.
type setHead struct {
	page
	Parent, Namespace, SetPath string
	Operator                   bool
	Awaiting                   bool // a plan of the set awaits approval
	Conditions                 []metav1.Condition
	ConditionsError            string
}

// setPage is the rest: the set's members, its history and its Events.
type setPage struct {
	page
	parents.View
	memberPage
	Operator    bool
	Events      []event
	EventsError string
}

// failure is what went wrong after the head was sent, and the warnings
// that came before, which may say why.
type failure struct {
	Heading  string
	Message  string
	Warnings []string
}

func (p *pages) serveSet(w http.ResponseWriter, r *http.Request) {
	ref, err := p.setRef(r)
	if err != nil {
		p.fail(w, statusOf(err), "The ApplySet could not be read", err)
		return
	}
	if !p.sendHead(w, p.headOf(r.Context(), ref)) {
		return
	}
	rest, broken := p.restOf(r, ref)
	p.sendRest(w, rest, broken)
}

// headOf is the head of the page of the set ref.
func (p *pages) headOf(ctx context.Context, ref membership.ParentRef) setHead {
	name := cli.ParentName(ref)
	h := setHead{page: p.page(name, nil), Parent: name, Namespace: ref.Namespace,
		SetPath: setPathOf(ref.Namespace, name), Operator: cli.IsOperatorSet(ref)}
	if h.Operator {
		var err error
		if h.Conditions, err = p.conditions(ctx, ref); err != nil {
			h.ConditionsError = err.Error()
		}
		ready := apimeta.FindStatusCondition(h.Conditions, applyv1alpha1.ConditionReady)
		h.Awaiting = ready != nil && ready.Reason == applyv1alpha1.ReasonAwaitingApproval
	}
	return h
}

// restOf reads the members of the set ref the page r asks for, and its
// Events; or what failed, as the page says it.
func (p *pages) restOf(r *http.Request, ref membership.ParentRef) (setPage, *failure) {
	var warnings bytes.Buffer
	n, _ := strconv.Atoi(r.URL.Query().Get("page")) // anything else is the first page
	v, err := p.viewOf(r.Context(), &warnings, ref, pageAt(n))
	if err != nil {
		return setPage{}, &failure{"The ApplySet could not be read", err.Error(), p.page("", &warnings).Warnings}
	}
	members, err := pageOf(v.MemberList, n, func(rows []parents.MemberHealth) []string {
		owns, err := childrenOf(r.Context(), p.c.Metadata, rows)
		if err != nil {
			fmt.Fprintf(&warnings, "Warning: what the members own is shown in part: %v\n", err)
		}
		return owns
	})
	if err != nil {
		return setPage{}, &failure{"The members could not be drawn", err.Error(), p.page("", &warnings).Warnings}
	}
	out := setPage{View: v, memberPage: members, Operator: cli.IsOperatorSet(ref)}
	if out.Events, err = eventsOf(r.Context(), p.c.Dynamic, ref); err != nil {
		out.EventsError = err.Error()
	}
	out.page = p.page(v.Parent, &warnings)
	return out, nil
}

// sendHead sends the page's status and its head, and flushes them; false
// when the head could not be rendered, which an error page then says.
func (p *pages) sendHead(w http.ResponseWriter, h setHead) bool {
	var buf bytes.Buffer
	if err := p.executeAll(&buf, h, "top", "head"); err != nil {
		fmt.Fprintf(p.errOut, "Error: rendering a page: %v\n", err)
		http.Error(w, "The page could not be rendered: "+err.Error(), http.StatusInternalServerError)
		return false
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if _, err := buf.WriteTo(w); err != nil {
		return false // the browser went away
	}
	// Without a flush the server holds the head until its buffer fills.
	_ = http.NewResponseController(w).Flush()
	return true
}

// sendRest ends the page: the rest of it, or what broke.
func (p *pages) sendRest(w io.Writer, rest setPage, broken *failure) {
	var buf bytes.Buffer
	if broken == nil {
		if err := p.executeAll(&buf, rest, "rest"); err != nil {
			fmt.Fprintf(p.errOut, "Error: rendering a page: %v\n", err)
			buf.Reset()
			broken = &failure{"The page could not be rendered", err.Error(), nil}
		}
	}
	if broken != nil {
		if err := p.set.ExecuteTemplate(&buf, "broken", broken); err != nil {
			fmt.Fprintf(p.errOut, "Error: rendering a page: %v\n", err)
		}
	}
	if err := p.set.ExecuteTemplate(&buf, "bottom", nil); err != nil {
		fmt.Fprintf(p.errOut, "Error: rendering a page: %v\n", err)
	}
	_, _ = buf.WriteTo(w) // the browser went away
}

// executeAll renders the set page's templates names, in turn, with data.
func (p *pages) executeAll(w io.Writer, data any, names ...string) error {
	for _, name := range names {
		if err := p.set.ExecuteTemplate(w, name, data); err != nil {
			return err
		}
	}
	return nil
}

// viewOf is view's account of the set ref, the members of page judged. One
// of the operator's sets not yet applied has no ID, nor members: it is
// shown as it is.
func (p *pages) viewOf(ctx context.Context, warnings io.Writer, ref membership.ParentRef, page parents.Page) (parents.View, error) {
	if cli.IsOperatorSet(ref) {
		meta, err := p.c.Metadata.Resource(ref.Type.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return parents.View{}, err
		}
		if meta.Labels[applyset.IDLabel] == "" {
			return parents.View{Summary: parents.Summary{Namespace: ref.Namespace, Parent: cli.ParentName(ref), Created: meta.CreationTimestamp.Time}}, nil
		}
	}
	return parents.ViewOf(ctx, warnings, p.c, ref, page)
}

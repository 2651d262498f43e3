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
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/applysets"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// planPage is a set's plan, previewed as approve shows it.
type planPage struct {
	page
	Parent  string
	SetPath string
	applysets.Review
	// Error says why the preview is not the plan awaiting approval, or
	// why there is none to show; no plan can be approved then.
	Error string
}

// servePlan previews what the operator would do with the set, as the user,
// through the pipeline approve previews with, and offers the Approve button
// only when the preview is the plan the set awaits.
func (p *pages) servePlan(w http.ResponseWriter, r *http.Request) {
	ref, err := p.setRef(r)
	if err != nil {
		p.fail(w, statusOf(err), "The ApplySet could not be read", err)
		return
	}
	if !cli.IsOperatorSet(ref) {
		err := cli.NotOperatorSetError{Name: cli.ParentName(ref), Instead: ": its tool applies it, so the operator has no plan of it"}
		p.fail(w, statusOf(err), "No plan", err)
		return
	}
	review, err := applysets.ReviewPlan(r.Context(), p.c, ref, p.hosts)
	out := planPage{page: p.page("Plan of "+cli.ParentName(ref), nil), Parent: cli.ParentName(ref),
		SetPath: setPathOf(ref.Namespace, cli.ParentName(ref)), Review: review}
	switch {
	case err != nil:
		out.Error = err.Error()
	case p.readOnly && review.Awaited != "":
		out.Error = errReadOnly.Error()
	}
	p.render(w, p.plan, out)
}

// errReadOnly is why a page served with --read-only approves nothing.
var errReadOnly = errors.New("this page was served with --read-only, so it approves nothing: " +
	"approve with kubectl applyset approve, or serve the page without --read-only")

// serveApprove approves the digest the page showed, as kubectl applyset
// approve --digest does: only when the set still awaits that very plan.
func (p *pages) serveApprove(w http.ResponseWriter, r *http.Request) {
	if p.readOnly {
		http.Error(w, "Not approved: "+errReadOnly.Error(), http.StatusForbidden)
		return
	}
	ref, err := p.setRef(r)
	if err != nil {
		http.Error(w, err.Error(), statusOf(err))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	digest := r.PostFormValue("digest")
	if digest == "" {
		http.Error(w, "Refused: the request names no plan digest.", http.StatusBadRequest)
		return
	}
	if err := applysets.Approve(r.Context(), p.c, ref, digest); err != nil {
		status := statusOf(err)
		if errors.As(err, new(applysets.NotAwaitedError)) {
			status = http.StatusConflict
		}
		http.Error(w, "Not approved: "+err.Error(), status)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "Approved plan %s of %s: the operator applies it next.\n", digest, cli.ParentName(ref)+cli.InNamespace(ref.Namespace))
}

// diffLine is a line of a unified diff and its style.
type diffLine struct{ Class, Text string }

// diffLines styles a unified diff line by line; each line keeps its + or -,
// so the change reads without its colour.
func diffLines(diff string) []diffLine {
	var out []diffLine
	for line := range strings.Lines(diff) {
		line = strings.TrimSuffix(line, "\n")
		class := ""
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "diff "):
			class = "diff-file"
		case strings.HasPrefix(line, "@@"):
			class = "diff-hunk"
		case strings.HasPrefix(line, "+"):
			class = "diff-add"
		case strings.HasPrefix(line, "-"):
			class = "diff-del"
		}
		out = append(out, diffLine{Class: class, Text: line})
	}
	return out
}

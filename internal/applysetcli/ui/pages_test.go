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
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/applysets"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/parents"
)

// Every page renders with what its handler gives it; a template naming a
// field its page lacks fails here rather than in a browser.
func TestPagesRender(t *testing.T) {
	p, err := newPages(nil, options{}, "token", "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	members := make([]parents.MemberHealth, 450)
	for i := range members {
		members[i] = parents.MemberHealth{Kind: "ConfigMap", Namespace: "shop", Name: fmt.Sprintf("c%03d", i), Health: "Current", Proof: "recorded", Group: i % 3}
	}
	page2, err := pageOf(members, 2, noOwners)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data any
		want []string
	}{
		{"set", streamedSet{setHead{Parent: "secret/web", SetPath: "/sets/shop/secret/web", Operator: true, Awaiting: true},
			setPage{View: parents.View{Summary: parents.Summary{Parent: "secret/web", Members: 450}}, memberPage: page2,
				Operator: true, Events: []event{{Type: "Normal", Reason: "Applied", Count: 2}}}},
			[]string{`id="member-201"`, `Page 2 of 3, 200 of 450 members.`, `href="?page=1" rel="prev"`, `href="?page=3" rel="next"`,
				`data-live="/sets/shop/secret/web/changes"`, `A plan awaits approval: review it`, `<th scope="row">Applied</th>`,
				`3 apply groups`, `"count":`}},
		{"plan", planPage{Parent: "applyset.apply.applyset.dev/gated", SetPath: "/sets/shop/applyset.apply.applyset.dev/gated",
			Review: applysets.Review{Awaited: "sha256:ab", Diff: "--- live\n+++ merged\n@@ -1 +1 @@\n-k: a\n+k: <b>\n"}},
			[]string{`<span class="diff-add">&#43;k: &lt;b&gt;</span>`, `<span class="diff-del">-k: a</span>`, `data-approve="/sets/shop/applyset.apply.applyset.dev/gated/approve"`,
				`<input type="hidden" name="digest" value="sha256:ab">`}},
		{"plan refused", planPage{Review: applysets.Review{Awaited: "sha256:ab"}, Error: "the preview here is plan sha256:cd"},
			[]string{`<p role="alert" id="plan-error">the preview here is plan sha256:cd</p>`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmpl := p.set
			if strings.HasPrefix(tc.name, "plan") {
				tmpl = p.plan
			}
			w := httptest.NewRecorder()
			if set, ok := tc.data.(streamedSet); ok {
				set.send(p, w)
			} else {
				p.render(w, tmpl, tc.data)
			}
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			for _, want := range tc.want {
				if !strings.Contains(w.Body.String(), want) {
					t.Errorf("the page lacks %s", want)
				}
			}
			if tc.name == "plan refused" && strings.Contains(w.Body.String(), "<form") {
				t.Error("a plan that is not the one awaited offers the Approve button")
			}
		})
	}
}

// links are the addresses a page's links, assets, and the requests its
// script makes (data-live, data-approve) go to.
var links = regexp.MustCompile(`(?:href|src|data-live|data-approve)="([^"]*)"`)

// Where reading needs the read secret, every link of every page carries it,
// as the first segment of its path, and the script's requests too: the
// browser keeps it in no cookie. A link within the page (?page=2, #member-1)
// keeps the page's own path, and with it the secret.
func TestPagesLinkUnderTheReadSecret(t *testing.T) {
	p, err := newPages(nil, options{}, "token", "/s3cret", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	members := make([]parents.MemberHealth, 450)
	for i := range members {
		members[i] = parents.MemberHealth{Kind: "ConfigMap", Namespace: "shop", Name: fmt.Sprintf("c%03d", i), Health: "Current", Group: i % 3}
	}
	page2, err := pageOf(members, 2, noOwners)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tmpl *template.Template
		data any
		want []string
	}{
		{"index", p.index, indexPage{Sets: []parents.Summary{{Namespace: "shop", Parent: "secret/web"}},
			Unapplied: []unappliedSet{{Parent: "applyset.apply.applyset.dev/gated"}}},
			[]string{"/s3cret/static/app.js", "/s3cret/static/vendor/dagre/dagre.min.js", "/s3cret/sets/shop/secret/web", "/s3cret/sets/_/applyset.apply.applyset.dev/gated"}},
		{"set", p.set, streamedSet{setHead{Parent: "secret/web", SetPath: "/sets/shop/secret/web", Operator: true},
			setPage{View: parents.View{Summary: parents.Summary{Parent: "secret/web", Members: 450}}, memberPage: page2, Operator: true}},
			[]string{"/s3cret/sets/shop/secret/web/changes", "/s3cret/sets/shop/secret/web/plan", "?page=3"}},
		{"plan", p.plan, planPage{SetPath: "/sets/shop/secret/web", Review: applysets.Review{Awaited: "sha256:ab"}},
			[]string{"/s3cret/sets/shop/secret/web", "/s3cret/sets/shop/secret/web/approve"}},
		{"error", p.failed, errorPage{Heading: "Not found", Message: "gone"}, []string{"/s3cret/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			if set, ok := tc.data.(streamedSet); ok {
				set.send(p, w)
			} else {
				p.render(w, tc.tmpl, tc.data)
			}
			var got []string
			for _, m := range links.FindAllStringSubmatch(w.Body.String(), -1) {
				got = append(got, m[1])
				if !strings.HasPrefix(m[1], "/s3cret/") && !strings.HasPrefix(m[1], "?") && !strings.HasPrefix(m[1], "#") {
					t.Errorf("the link %q leaves the read secret behind", m[1])
				}
			}
			for _, want := range tc.want {
				if !slices.Contains(got, want) {
					t.Errorf("the page lacks a link to %s; it has %q", want, got)
				}
			}
		})
	}
}

// A page served with --read-only approves nothing, whatever the request
// carries, and says how to approve instead; it reads nothing to say so.
func TestReadOnlyRefusesApproval(t *testing.T) {
	p, err := newPages(nil, options{ReadOnly: true}, "token", "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/sets/shop/applyset.apply.applyset.dev/gated/approve", strings.NewReader("digest=sha256:ab"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	p.serveApprove(w, r)
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "--read-only") {
		t.Errorf("status %d: %s", w.Code, w.Body)
	}
}

// streamedSet is a set's page as serveSet sends it: its head, then the rest.
type streamedSet struct {
	head setHead
	rest setPage
}

func (s streamedSet) send(p *pages, w *httptest.ResponseRecorder) {
	if p.sendHead(w, s.head) {
		p.sendRest(w, s.rest, nil)
	}
}

// noOwners says the members own nothing.
func noOwners(rows []parents.MemberHealth) []string { return make([]string, len(rows)) }

func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"no such parent", cli.NoParentError{}, http.StatusNotFound},
		{"a parent of another tool where only the operator's sets will do", fmt.Errorf("approving: %w", cli.NotOperatorSetError{Name: "secret/web"}), http.StatusNotFound},
		{"a path naming no parent", errNotFound{errors.New("bad path")}, http.StatusNotFound},
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "web", errors.New("no")), http.StatusForbidden},
		{"anything else the API server said", errors.New("connection refused"), http.StatusBadGateway},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := statusOf(tc.err); got != tc.want {
				t.Errorf("statusOf(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}

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
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/utils/ptr"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/applysets"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/parents"
	"github.com/applyset-operator/applyset-operator/internal/membership"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pages renders the index and the sets' pages, each read afresh, as list
// and view read them, when it is asked for.
type pages struct {
	c     *cli.Clients
	scope cli.Within
	hosts applysets.ArtifactHosts // where a plan's preview may fetch artifacts from
	token string
	// readOnly refuses approvals: the user did not agree to them (ui --read-only).
	readOnly bool
	errOut   io.Writer
	index    *template.Template
	set      *template.Template
	plan     *template.Template
	failed   *template.Template
}

var funcs = template.FuncMap{
	"healthClass": healthClass,
	"setPath":     setPathOf,
	"age": func(t time.Time) string {
		if t.IsZero() {
			return "<unknown>"
		}
		return duration.HumanDuration(time.Since(t))
	},
	"orNone": func(s string) string {
		if s == "" {
			return "<none>"
		}
		return s
	},
	"join": strings.Join,
	// stamp is a time of the set's history, in UTC as RFC 3339.
	"stamp": func(t *metav1.Time) string {
		if t == nil {
			return "<unknown>"
		}
		return t.UTC().Format(time.RFC3339)
	},
	"count":     func(n *int32) int32 { return ptr.Deref(n, 0) },
	"inc":       func(i int) int { return i + 1 },
	"dec":       func(i int) int { return i - 1 },
	"diffLines": diffLines,
}

// newPages parses the pages; base begins every link they carry: "", or the
// read secret's segment when reading needs it (see guard.readSecret).
func newPages(c *cli.Clients, o options, token, base string, errOut io.Writer) (*pages, error) {
	p := &pages{c: c, scope: o.Scope, hosts: o.Hosts, token: token, readOnly: o.ReadOnly, errOut: errOut}
	// link is the link to a path of the server's routes: base and the path.
	link := template.FuncMap{"link": func(path string) string { return base + path }}
	var err error
	for _, t := range []struct {
		into **template.Template
		file string
	}{{&p.index, "index.html"}, {&p.set, "set.html"}, {&p.plan, "plan.html"}, {&p.failed, "error.html"}} {
		if *t.into, err = template.New("").Funcs(funcs).Funcs(link).ParseFS(templateFS, "templates/layout.html", "templates/"+t.file); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *pages) routes() http.Handler {
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embedded folder is there, or the program would not build
	}
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", p.serveIndex)
	mux.HandleFunc("GET /sets/{namespace}/{kind}/{name}", p.serveSet)
	mux.HandleFunc("GET /sets/{namespace}/{kind}/{name}/plan", p.servePlan)
	mux.HandleFunc("POST /sets/{namespace}/{kind}/{name}/approve", p.serveApprove)
	mux.HandleFunc("POST /sets/{namespace}/{kind}/{name}/changes", p.serveChanges)
	return mux
}

// page is what every page shows around its content.
type page struct {
	Title    string
	Token    string
	Warnings []string
}

type indexPage struct {
	page
	AllNamespaces bool
	Namespace     string
	Sets          []parents.Summary
	Unapplied     []unappliedSet
}

func (p *pages) serveIndex(w http.ResponseWriter, r *http.Request) {
	var warnings bytes.Buffer
	sets, err := parents.List(r.Context(), &warnings, p.c, p.scope)
	if err != nil {
		p.fail(w, statusOf(err), "The ApplySets could not be listed", err)
		return
	}
	unapplied := p.unapplied(r.Context(), &warnings)
	p.render(w, p.index, indexPage{page: p.page("ApplySets", &warnings), AllNamespaces: p.scope.AllNamespaces,
		Namespace: p.c.Namespace, Sets: sets, Unapplied: unapplied})
}

// setRef reads the parent a set's path names, checked as names are.
func (p *pages) setRef(r *http.Request) (membership.ParentRef, error) {
	namespace, kind, name, err := checkSetPath(r.PathValue("namespace"), r.PathValue("kind"), r.PathValue("name"))
	if err != nil {
		return membership.ParentRef{}, errNotFound{err}
	}
	return p.resolve(r.Context(), namespace, kind, name)
}

// resolve reads the parent a set's page names, as view reads its argument.
func (p *pages) resolve(ctx context.Context, namespace, kind, name string) (membership.ParentRef, error) {
	in := *p.c
	in.Namespace = namespace
	ref, err := cli.ParentOf(&in, kind+"/"+name)
	if err != nil {
		return ref, errNotFound{err}
	}
	if ref.Type.Namespaced != (namespace != "") {
		return ref, errNotFound{fmt.Errorf("%s is %s: its page's namespace is wrong", kind, scopeWord(ref.Type.Namespaced))}
	}
	if cli.IsOperatorSet(ref) {
		// One of the operator's sets is a parent once it is first applied;
		// before that its page shows its conditions and the plan it awaits.
		_, err = p.c.Metadata.Resource(ref.Type.Resource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		return ref, err
	}
	if _, err := cli.ResolveParent(ctx, &in, kind+"/"+name); err != nil {
		return ref, err
	}
	return ref, nil
}

func scopeWord(namespaced bool) string {
	if namespaced {
		return "namespaced"
	}
	return "cluster-scoped"
}

// conditions are those of one of the operator's sets.
func (p *pages) conditions(ctx context.Context, ref membership.ParentRef) ([]metav1.Condition, error) {
	cl, err := p.c.Client()
	if err != nil {
		return nil, err
	}
	set, err := cli.OperatorSetOf(ctx, cl, ref)
	if err != nil {
		return nil, err
	}
	return set.GetSetStatus().Conditions, nil
}

func (p *pages) page(title string, warnings *bytes.Buffer) page {
	out := page{Title: title, Token: p.token}
	if warnings == nil {
		return out
	}
	for line := range strings.Lines(warnings.String()) {
		out.Warnings = append(out.Warnings, strings.TrimPrefix(strings.TrimSpace(line), "Warning: "))
	}
	return out
}

type errorPage struct {
	page
	Heading string
	Message string
}

// fail answers with an error page: what failed and why, as the API server
// said it.
func (p *pages) fail(w http.ResponseWriter, status int, heading string, err error) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	p.renderBody(w, p.failed, errorPage{page: page{Title: heading, Token: p.token}, Heading: heading, Message: err.Error()})
}

func (p *pages) render(w http.ResponseWriter, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", data); err != nil {
		fmt.Fprintf(p.errOut, "Error: rendering a page: %v\n", err)
		http.Error(w, "The page could not be rendered: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = buf.WriteTo(w) // the browser went away
}

// renderBody renders after the status is written.
func (p *pages) renderBody(w http.ResponseWriter, t *template.Template, data any) {
	if err := t.ExecuteTemplate(w, "layout", data); err != nil {
		fmt.Fprintf(p.errOut, "Error: rendering a page: %v\n", err)
	}
}

// errNotFound is a page that names no parent.
type errNotFound struct{ error }

// statusOf is the answer's status for an error reading from the API server.
func statusOf(err error) int {
	switch {
	case errors.As(err, new(errNotFound)), errors.As(err, new(cli.NoParentError)), errors.As(err, new(cli.NotOperatorSetError)),
		apierrors.IsNotFound(err):
		return http.StatusNotFound
	case apierrors.IsForbidden(err):
		return http.StatusForbidden
	case apierrors.IsUnauthorized(err):
		return http.StatusUnauthorized
	}
	return http.StatusBadGateway
}

// healthClass is the style of a health word; the word itself is always shown.
func healthClass(word string) string {
	switch word {
	case "Current":
		return "health-current"
	case "InProgress":
		return "health-progress"
	case "Failed":
		return "health-failed"
	}
	return "health-unknown"
}

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

package adopt

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// source is a record another tool kept of a group of objects: adopt reads
// that record and never guesses. Each kind of record is a file that
// implements source; those --from reads are listed once, in fromKinds, and
// the help and messages that name them are made from that table.
type source interface {
	// String names what is adopted, in the plan and in messages.
	String() string
	// read lists the objects the record names, and says what the old tool
	// still does with them and under which field managers it applied them.
	read(ctx context.Context, c *cli.Clients) (adoptGroup, error)
}

// adoptGroup is what a source read: the one shape every source reads into.
type adoptGroup struct {
	refs []apply.ObjectRef
	// active says why the old tool may still act on the objects; --force
	// adopts them anyway.
	active []string
	// refusals say why adopting is unsafe whatever the flags.
	refusals []string
	// notes tell what the old tool will still do once the objects are adopted.
	notes []string
	// kubectlNotes tell what adopting into a kubectl set does besides.
	kubectlNotes []string
	// leftOut names objects the record left out, and why.
	leftOut []string
	// appliers are the field managers under which the old tool applies
	// server-side by default: their apply entries are what it declared, and
	// a set adopting the objects declares that in turn.
	appliers []string
	// handedToKubectl are the appliers whose apply entries adopt hands to
	// kubectl's field manager with the label, when it makes a kubectl set.
	handedToKubectl []string
	// declared are the objects as the old tool's record holds them (Helm's
	// manifest), when it holds them: what a set adopting them declares.
	declared map[apply.ObjectRef]*unstructured.Unstructured
}

// fromKind is a kind of record --from reads.
type fromKind struct {
	// typ names it in --from TYPE/NAME, singular, and group is the API group
	// TYPE may be qualified with (none for records kept in Secrets and
	// ConfigMaps); arg is what NAME stands for, if more than a name.
	typ, group, arg string
	// records names the records and tool the tool that keeps them, where
	// the type does not say it.
	records, tool string
	// help says what adopt reads of the record, in lines of adopt's help.
	help []string
	// open is the source of one record.
	open func(named) source
}

// fromKinds are the records --from reads.
var fromKinds = []fromKind{helmKind, fluxKind, argoKind, resourceGroupKind, inventoryKind}

// form is how --from names a record of the kind: helm/RELEASE,
// kustomization/NAME.
func (k fromKind) form() string {
	if k.arg == "" {
		return k.typ + "/NAME"
	}
	return k.typ + "/" + k.arg
}

// fromForms names the records --from reads, for messages.
func fromForms() string {
	forms := make([]string, 0, len(fromKinds))
	for _, k := range fromKinds {
		forms = append(forms, k.records+" ("+k.form()+")")
	}
	return strings.Join(forms[:len(forms)-1], ", ") + " and " + forms[len(forms)-1]
}

// fromFlagHelp is the help of --from.
func fromFlagHelp() string {
	forms := make([]string, 0, len(fromKinds))
	for _, k := range fromKinds {
		form := k.form()
		if k.tool != "" {
			form += " (" + k.tool + ")"
		}
		forms = append(forms, form)
	}
	return "The record of another tool: " + strings.Join(forms[:len(forms)-1], ", ") + " or " + forms[len(forms)-1] + "."
}

// sourcesHelp lists the sources in adopt's help, each with what it reads.
func sourcesHelp() string {
	var b strings.Builder
	line := func(flags string, help []string) {
		fmt.Fprintf(&b, "  %-31s%s\n", flags, help[0])
		for _, h := range help[1:] {
			fmt.Fprintf(&b, "%33s%s\n", "", h)
		}
	}
	line(selectorFlags, selectorHelp)
	for _, k := range fromKinds {
		line("--from "+k.form(), k.help)
	}
	return b.String()
}

// named is the record --from names: TYPE/NAME in a namespace.
type named struct{ typ, namespace, name string }

func (n named) String() string {
	return n.typ + "/" + n.name + cli.InNamespace(n.namespace)
}

// readObject reads a record kept in one object of type gr, and the objects
// its entries name: how every source whose record is one object starts.
func (n named) readObject(ctx context.Context, c *cli.Clients, gr schema.GroupResource,
	entries func(*unstructured.Unstructured) ([]apply.ObjectRef, error)) (*unstructured.Unstructured, adoptGroup, error) {
	gvr, err := c.Mapper.ResourceFor(gr.WithVersion(""))
	if err != nil {
		return nil, adoptGroup{}, fmt.Errorf("%s: %w", gr, err)
	}
	obj, err := c.Dynamic.Resource(gvr).Namespace(n.namespace).Get(ctx, n.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, adoptGroup{}, fmt.Errorf("%s %s not found%s", gr, n.name, cli.InNamespace(n.namespace))
	case err != nil:
		return nil, adoptGroup{}, err
	}
	refs, err := entries(obj)
	if err != nil {
		return nil, adoptGroup{}, fmt.Errorf("%s: %w", n, err)
	}
	return obj, adoptGroup{refs: refs}, nil
}

// sourceFlags are the flags that name a source.
type sourceFlags struct {
	selector      string
	kinds         []string
	from          string
	fromNamespace string
}

// source picks the source the flags name: exactly one of -l with --kinds,
// or --from.
func (f sourceFlags) source(c *cli.Clients) (source, error) {
	switch {
	case f.from != "" && (f.selector != "" || len(f.kinds) > 0):
		return nil, fmt.Errorf("--from and -l/--kinds name two sources: give one")
	case f.from != "":
		return f.fromSource(c)
	case f.selector == "" || len(f.kinds) == 0:
		return nil, fmt.Errorf("name the group: -l SELECTOR with --kinds KIND,... (as kubectl apply --prune -l with --prune-allowlist), "+
			"or --from: %s", fromForms())
	}
	return newSelectorSource(c, f.selector, f.kinds)
}

// fromSource reads --from TYPE/NAME, in --from-namespace or the namespace in use.
func (f sourceFlags) fromSource(c *cli.Clients) (source, error) {
	typ, name, ok := strings.Cut(f.from, "/")
	if !ok || name == "" {
		return nil, fmt.Errorf("--from %q: want TYPE/NAME; adopt reads %s", f.from, fromForms())
	}
	namespace := f.fromNamespace
	if namespace == "" {
		namespace = c.Namespace
	}
	base, group, _ := strings.Cut(strings.ToLower(typ), ".")
	base = strings.TrimSuffix(base, "s")
	for _, k := range fromKinds {
		if base == k.typ && (group == "" || group == k.group) {
			return k.open(named{typ: k.typ, namespace: namespace, name: name}), nil
		}
	}
	return nil, fmt.Errorf("--from %q: adopt reads %s", f.from, fromForms())
}

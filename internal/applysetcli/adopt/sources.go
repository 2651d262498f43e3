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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// adoptSource is where another tool recorded a group of objects: adopt reads
// that record and never guesses.
type adoptSource interface {
	// String names the source in the plan.
	String() string
	// read returns the group as the old tool recorded it.
	read(ctx context.Context, c *cli.Clients) (adoptGroup, error)
}

// adoptGroup is what a source read.
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
	// appliers are the field managers under which the old tool applied
	// server-side: their apply entries are what it declared, and adopt hands
	// them to kubectl's field manager with the label.
	appliers []string
	// declared are the objects as the old tool's record holds them (Helm's
	// manifest), when it holds them: what a set adopting them declares.
	declared map[apply.ObjectRef]*unstructured.Unstructured
}

// fromForms names the records --from reads.
const fromForms = "Helm releases (helm/RELEASE), Flux Kustomizations (kustomization/NAME), Argo CD Applications (application/NAME), " +
	"kpt ResourceGroups (resourcegroup/NAME) and cli-utils inventory ConfigMaps (inventory/NAME)"

// sourceFlags are the flags that name a source.
type sourceFlags struct {
	selector      string
	kinds         []string
	from          string
	fromNamespace string
}

// source picks the source the flags name: exactly one of -l with --kinds,
// or --from.
func (f sourceFlags) source(c *cli.Clients) (adoptSource, error) {
	switch {
	case f.from != "" && (f.selector != "" || len(f.kinds) > 0):
		return nil, fmt.Errorf("--from and -l/--kinds name two sources: give one")
	case f.from != "":
		return f.fromSource(c)
	case f.selector == "" || len(f.kinds) == 0:
		return nil, fmt.Errorf("name the group: -l SELECTOR with --kinds KIND,... (as kubectl apply --prune -l with --prune-allowlist), "+
			"or --from: %s", fromForms)
	}
	if _, err := metav1.ParseToLabelSelector(f.selector); err != nil {
		return nil, fmt.Errorf("-l %q: %w", f.selector, err)
	}
	kinds, err := parseKinds(c, f.kinds)
	if err != nil {
		return nil, err
	}
	return selectorSource{selector: f.selector, kinds: kinds, namespace: c.Namespace}, nil
}

// fromSource reads --from TYPE/NAME, in --from-namespace or the namespace in use.
func (f sourceFlags) fromSource(c *cli.Clients) (adoptSource, error) {
	typ, name, ok := strings.Cut(f.from, "/")
	if !ok || name == "" {
		return nil, fmt.Errorf("--from %q: want TYPE/NAME; adopt reads %s", f.from, fromForms)
	}
	namespace := f.fromNamespace
	if namespace == "" {
		namespace = c.Namespace
	}
	base, group, _ := strings.Cut(strings.ToLower(typ), ".")
	base = strings.TrimSuffix(base, "s")
	for _, t := range fromTypes {
		if base == t.base && (group == "" || group == t.group) {
			return t.source(namespace, name), nil
		}
	}
	return nil, fmt.Errorf("--from %q: adopt reads %s", f.from, fromForms)
}

// fromTypes are the records --from reads: the type's name, singular, and
// the API group it may be qualified with (none for Helm's and cli-utils'
// records, which are Secrets and ConfigMaps).
var fromTypes = []struct {
	base, group string
	source      func(namespace, name string) adoptSource
}{
	{"helm", "", func(ns, name string) adoptSource { return helmSource{namespace: ns, name: name} }},
	{"kustomization", kustomizationResource.Group, func(ns, name string) adoptSource { return fluxSource{namespace: ns, name: name} }},
	{"application", applicationResource.Group, func(ns, name string) adoptSource { return argoSource{namespace: ns, name: name} }},
	{"resourcegroup", resourceGroupResource.Group, func(ns, name string) adoptSource { return resourceGroupSource{namespace: ns, name: name} }},
	{"inventory", "", func(ns, name string) adoptSource { return inventorySource{namespace: ns, name: name} }},
}

// parseKinds reads --kinds: Kind.group (Deployment.apps), resource.group
// (deployments.apps) or kubectl's --prune-allowlist form group/version/Kind
// (core/v1/ConfigMap), each a type the API server serves.
func parseKinds(c *cli.Clients, values []string) ([]schema.GroupKind, error) {
	var kinds []schema.GroupKind
	for _, v := range values {
		gk, err := kindOf(c, strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("--kinds %q: %w", v, err)
		}
		kinds = append(kinds, gk)
	}
	return kinds, nil
}

func kindOf(c *cli.Clients, value string) (schema.GroupKind, error) {
	if parts := strings.Split(value, "/"); len(parts) == 3 {
		group := parts[0]
		if group == "core" {
			group = ""
		}
		value = schema.GroupKind{Group: group, Kind: parts[2]}.String()
	}
	gk := schema.ParseGroupKind(value)
	if _, err := c.Mapper.RESTMapping(gk); err == nil {
		return gk, nil
	}
	gvk, err := c.Mapper.KindFor(schema.ParseGroupResource(value).WithVersion(""))
	if err != nil {
		return schema.GroupKind{}, err
	}
	return gvk.GroupKind(), nil
}

// selectorSource is kubectl's legacy prune: the objects of the allowed kinds
// that match the selector and carry kubectl's last-applied annotation.
type selectorSource struct {
	selector  string
	kinds     []schema.GroupKind
	namespace string
}

func (s selectorSource) String() string {
	return fmt.Sprintf("kubectl apply --prune -l %s of %s", s.selector, kindList(s.kinds))
}

func (s selectorSource) read(ctx context.Context, c *cli.Clients) (adoptGroup, error) {
	var group adoptGroup
	for _, gk := range s.kinds {
		if err := s.readKind(ctx, c, gk, &group); err != nil {
			return group, err
		}
	}
	group.notes = append(group.notes, fmt.Sprintf("kubectl apply --prune -l %s without --applyset still prunes these objects: "+
		"they keep their labels and last-applied annotation; prune with --applyset only from now on", s.selector))
	return group, nil
}

// readKind lists one kind as kubectl's legacy prune does: in the namespace
// in use, or the whole cluster for a cluster-scoped kind.
func (s selectorSource) readKind(ctx context.Context, c *cli.Clients, gk schema.GroupKind, group *adoptGroup) error {
	mapping, err := c.Mapper.RESTMapping(gk)
	if err != nil {
		return err
	}
	namespace := s.namespace
	if !isNamespaced(mapping.Scope.Name()) {
		namespace = ""
	}
	list, err := c.Metadata.Resource(mapping.Resource).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: s.selector})
	if err != nil {
		return fmt.Errorf("listing %s: %w", gk, err)
	}
	for _, item := range list.Items {
		ref := apply.ObjectRef{GroupKind: gk, Namespace: item.Namespace, Name: item.Name}
		if _, ok := item.Annotations[apply.LastAppliedAnnotation]; !ok {
			group.leftOut = append(group.leftOut, ref.String()+": no "+apply.LastAppliedAnnotation+", so kubectl's prune never deleted it")
			continue
		}
		group.refs = append(group.refs, ref)
	}
	return nil
}

func kindList(kinds []schema.GroupKind) string {
	names := make([]string, 0, len(kinds))
	for _, gk := range kinds {
		names = append(names, gk.String())
	}
	return strings.Join(names, ",")
}

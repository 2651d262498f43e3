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
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// adoptee is one object of the group, as read before it is adopted.
type adoptee struct {
	ref      apply.ObjectRef
	resource schema.GroupVersionResource
	obj      *metav1.PartialObjectMetadata
	// refusal says why it may not be adopted.
	refusal string
}

// adoptPlan is everything adopt will write, and why it may not.
type adoptPlan struct {
	source  source
	group   adoptGroup
	parent  membership.ParentRef
	id      string
	tooling applyset.Tooling
	// parentExists is set when the parent is already kubectl's parent of this set.
	parentExists bool
	kinds        sets.Set[schema.GroupKind]
	namespaces   sets.Set[string]
	objects      []adoptee
	// missing are recorded objects that no longer exist.
	missing []string
	// parentRefusal says why the parent cannot be this set's.
	parentRefusal string
}

// planAdoption reads the source, the parent and every object of the group.
func planAdoption(ctx context.Context, c *cli.Clients, src source, parent membership.ParentRef, tooling applyset.Tooling) (*adoptPlan, error) {
	group, err := src.read(ctx, c)
	if err != nil {
		return nil, err
	}
	p := &adoptPlan{source: src, group: group, parent: parent, id: parent.Key().ID(), tooling: tooling,
		kinds: sets.New[schema.GroupKind](), namespaces: sets.New[string]()}
	if err := p.readParent(ctx, c); err != nil {
		return nil, err
	}
	seen := sets.New[apply.ObjectRef]()
	for _, ref := range group.refs {
		if seen.Has(ref) {
			continue // a record may name an object twice; it is written once
		}
		seen.Insert(ref)
		if err := p.readObject(ctx, c, ref); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// readParent checks that the parent is absent, or already kubectl's parent of
// this very set, whose hints it then keeps: kubectl refuses any other.
func (p *adoptPlan) readParent(ctx context.Context, c *cli.Clients) error {
	obj, err := c.Metadata.Resource(p.parent.Type.Resource).Namespace(p.parent.Namespace).Get(ctx, p.parent.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	parsed := applyset.ParseParent(p.parent.Key(), obj.Labels, obj.Annotations)
	id, tooling := obj.Labels[applyset.IDLabel], obj.Annotations[applyset.ToolingAnnotation]
	switch {
	case id == "":
		p.parentRefusal = "it exists and is no ApplySet parent (no " + applyset.IDLabel + " label); kubectl would refuse it too"
	case id != p.id:
		p.parentRefusal = fmt.Sprintf("its %s label is %s, not its own ID %s", applyset.IDLabel, id, p.id)
	case tooling == "":
		p.parentRefusal = "it has no " + applyset.ToolingAnnotation + " annotation; kubectl would refuse it"
	case !parsed.Tooling.CompatibleWith(p.tooling):
		p.parentRefusal = fmt.Sprintf("it belongs to the tooling %q, not kubectl", tooling)
	default:
		p.parentExists, p.tooling = true, parsed.Tooling
		p.kinds = p.kinds.Union(parsed.GroupKinds)
		p.namespaces = p.namespaces.Union(parsed.Scope.AdditionalNamespaces)
	}
	return nil
}

// readObject reads one recorded object and judges whether it may join.
func (p *adoptPlan) readObject(ctx context.Context, c *cli.Clients, ref apply.ObjectRef) error {
	mapping, err := c.Mapper.RESTMapping(ref.GroupKind)
	if err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	if !isNamespaced(mapping.Scope.Name()) {
		ref.Namespace = ""
	}
	obj, err := c.Metadata.Resource(mapping.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		p.missing = append(p.missing, ref.String())
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", ref, err)
	}
	a := adoptee{ref: ref, resource: mapping.Resource, obj: obj, refusal: p.judge(obj)}
	p.objects = append(p.objects, a)
	p.kinds.Insert(ref.GroupKind)
	if ref.Namespace != "" {
		p.namespaces.Insert(ref.Namespace)
	}
	return nil
}

// judge says why an object may not join the set, or nothing.
func (p *adoptPlan) judge(obj *metav1.PartialObjectMetadata) string {
	if set := obj.Labels[applyset.PartOfLabel]; set != "" && set != p.id {
		return fmt.Sprintf("it is in another set (%s=%s)", applyset.PartOfLabel, set)
	}
	if p.parent.Namespace != "" && obj.Namespace != "" && obj.Namespace != p.parent.Namespace {
		// kubectl requires -n for a namespaced parent, and -n refuses a
		// manifest that names another namespace.
		return fmt.Sprintf("it is in namespace %s: kubectl applies a set whose parent is namespaced only with -n %s, which refuses objects of "+
			"other namespaces; adopt into a cluster-scoped parent (a custom resource of a parent type)", obj.Namespace, p.parent.Namespace)
	}
	if len(obj.OwnerReferences) > 0 {
		owner := obj.OwnerReferences[0]
		return fmt.Sprintf("it is owned by %s %s (ownerReferences): its owner keeps it, not a set", owner.Kind, owner.Name)
	}
	return ""
}

// ownsOnlyPartOf reports whether a managed fields entry holds nothing but
// the part-of label.
func ownsOnlyPartOf(e metav1.ManagedFieldsEntry) bool {
	if e.FieldsV1 == nil {
		return true
	}
	var fields map[string]any
	if json.Unmarshal(e.FieldsV1.GetRawBytes(), &fields) != nil {
		return false
	}
	for _, key := range []string{"f:metadata", "f:labels", "f:" + applyset.PartOfLabel} {
		delete(fields, ".")
		next, ok := fields[key].(map[string]any)
		if !ok || len(fields) != 1 {
			return false
		}
		fields = next
	}
	delete(fields, ".")
	return len(fields) == 0
}

// refusals are the reasons nothing may be written; with force, the old tool
// being active is not one.
func (p *adoptPlan) refusals(force bool) []string {
	out := append([]string(nil), p.group.refusals...)
	if !force {
		out = append(out, p.group.active...)
	}
	if p.parentRefusal != "" {
		out = append(out, cli.ParentName(p.parent)+cli.InNamespace(p.parent.Namespace)+": "+p.parentRefusal)
	}
	for _, a := range p.objects {
		if a.refusal != "" {
			out = append(out, a.ref.String()+": "+a.refusal)
		}
	}
	if len(p.objects) == 0 {
		out = append(out, p.source.String()+" records no object that exists")
	}
	return out
}

// print shows the plan: the parent, each object with its field managers, and
// what the old tool will still do.
func (p *adoptPlan) print(w io.Writer) {
	fmt.Fprintf(w, "Adopting %d objects of %s into %s%s (ID %s)\n", len(p.objects), p.source, cli.ParentName(p.parent), cli.InNamespace(p.parent.Namespace), p.id)
	verb := "create"
	if p.parentExists {
		verb = "update"
	}
	fmt.Fprintf(w, "Parent: %s it with %s=%s, %s=%s, %s=%q, %s=%q (server-side apply, field manager %s)\n", verb,
		applyset.IDLabel, p.id, applyset.ToolingAnnotation, p.tooling, applyset.GroupKindsAnnotation, applyset.FormatGroupKinds(p.kinds),
		applyset.AdditionalNamespacesAnnotation, applyset.FormatNamespaces(p.namespaces, p.parent.Namespace), p.tooling.ParentFieldManager())
	for _, a := range p.objects {
		fmt.Fprintf(w, "  %s (field managers: %s): %s\n", a.ref, managers(a.obj.ManagedFields), p.action(a))
	}
	for _, m := range p.missing {
		fmt.Fprintf(w, "  %s: recorded, but not found; left out\n", m)
	}
	for _, l := range p.group.leftOut {
		fmt.Fprintf(w, "  left out: %s\n", l)
	}
	for _, n := range slices.Concat(p.group.active, p.group.notes, p.group.kubectlNotes) {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
}

// action is what adopt writes on one object.
func (p *adoptPlan) action(a adoptee) string {
	switch {
	case a.refusal != "":
		return "refused: " + a.refusal
	case a.obj.Labels[applyset.PartOfLabel] == p.id && kubectlAppliedLabel(a.obj):
		return "already a member; its label is applied again"
	case len(appliedBy(a.obj, p.group.handedToKubectl)) > 0:
		return fmt.Sprintf("label %s=%s, and the fields %s applied handed to field manager %s", applyset.PartOfLabel, p.id,
			strings.Join(appliedBy(a.obj, p.group.handedToKubectl), ", "), identity.KubectlFieldManager)
	case kubectlAppliesMore(a.obj):
		return fmt.Sprintf("label %s=%s, joined to the fields field manager %s already applies", applyset.PartOfLabel, p.id, identity.KubectlFieldManager)
	}
	return fmt.Sprintf("label %s=%s (server-side apply, field manager %s)", applyset.PartOfLabel, p.id, identity.KubectlFieldManager)
}

// kubectlAppliedLabel reports whether an apply of kubectl wrote the part-of
// label, which is what makes the set trust it.
func kubectlAppliedLabel(obj *metav1.PartialObjectMetadata) bool {
	for _, m := range applyset.PartOfAppliers(obj.ManagedFields) {
		if m == identity.KubectlFieldManager {
			return true
		}
	}
	return false
}

// managers names an object's field managers and how they wrote.
func managers(entries []metav1.ManagedFieldsEntry) string {
	if len(entries) == 0 {
		return "none"
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Manager + " (" + string(e.Operation)
		if e.Subresource != "" {
			name += " " + e.Subresource
		}
		names = append(names, name+")")
	}
	return strings.Join(names, ", ")
}

func isNamespaced(scope meta.RESTScopeName) bool {
	return scope == meta.RESTScopeNameNamespace
}

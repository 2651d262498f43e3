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
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// setPlan is what adopt --to applyset writes besides the plan of the group:
// each object's declaration, and the set made of them.
type setPlan struct {
	*adoptPlan
	declarations map[string]*declaration
	set          *unstructured.Unstructured
	// holder holds a declaration kept out of line: a ConfigMap, or a Secret
	// when the declaration holds one.
	holder *unstructured.Unstructured
}

// adoptIntoSet adopts the group into one of the operator's ApplySets: each
// object gets the part-of label, applied by the operator's own field manager
// together with the fields the old tool applied server-side, and then the set
// is created declaring what the old tool declared. Its first reconcile finds
// every field it declares already its own, and records the members it
// applied in status.members, which is the operator's proof of membership.
func adoptIntoSet(cmd *cobra.Command, o *cli.Options, c *cli.Clients, parentArg string, flags sourceFlags, serviceAccount string, ask *cli.Ask, force bool) error {
	ctx := cmd.Context()
	src, err := flags.source(c)
	if err != nil {
		return err
	}
	parent, err := cli.ParentOf(c, parentArg)
	if err != nil {
		return err
	}
	if parent.Type.GroupKind != applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind() {
		return fmt.Errorf("%s: --to applyset adopts into applyset/NAME, an ApplySet of the operator in the namespace in use", cli.ParentName(parent))
	}
	base, err := planAdoption(ctx, c, src, parent, identity.Tooling(""))
	if err != nil {
		return err
	}
	p := &setPlan{adoptPlan: base, declarations: map[string]*declaration{}}
	if err := p.read(ctx, c, serviceAccount); err != nil {
		return err
	}
	p.print(o.Streams.Out, serviceAccount)
	if refusals := p.refusals(force); len(refusals) > 0 {
		return fmt.Errorf("nothing changed:\n  %s", strings.Join(refusals, "\n  "))
	}
	if err := ask.Confirm(fmt.Sprintf("Adopt %d objects into %s?", len(p.objects), cli.ParentName(parent))); err != nil {
		return err
	}
	dr := ask.DryRun
	if err := p.write(ctx, c, dr); err != nil {
		return err
	}
	fmt.Fprintf(o.Streams.Out, "%d objects adopted into %s%s%s; the operator applies them from now on: kubectl applyset view %s%s\n",
		len(p.objects), cli.ParentName(parent), cli.InNamespace(parent.Namespace), dr.Suffix(), cli.ParentName(parent), cli.NSFlag(parent.Namespace))
	return nil
}

// read checks that the set does not exist yet, reads each object's
// declaration and builds the set.
func (p *setPlan) read(ctx context.Context, c *cli.Clients, serviceAccount string) error {
	p.parentRefusal = ""
	_, err := c.Metadata.Resource(p.parent.Type.Resource).Namespace(p.parent.Namespace).Get(ctx, p.parent.Name, metav1.GetOptions{})
	switch {
	case err == nil:
		p.parentRefusal = "it exists: adopt --to applyset creates the set, declaring what it adopts; name a new one"
	case !apierrors.IsNotFound(err):
		return err
	}
	d := &declarer{c: c, recorded: p.group.declared, appliers: p.group.appliers}
	var declared []*unstructured.Unstructured
	for i, a := range p.objects {
		if a.refusal != "" {
			continue
		}
		decl, why, err := d.declare(ctx, a)
		if err != nil {
			return err
		}
		if decl != nil && len(appliedBy(a.obj, p.group.appliers)) > 0 {
			if why, err = d.fieldsOf(a, decl); err != nil {
				return err
			}
		}
		if why != "" {
			p.objects[i].refusal = why
			continue
		}
		p.declarations[a.ref.String()] = decl
		declared = append(declared, decl.obj)
	}
	if len(declared) == 0 {
		return nil
	}
	p.set, p.holder, err = newAdoptingSet(p.parent.Namespace, p.parent.Name, serviceAccount, declared)
	return err
}

// print shows the plan: the set, each object with its field managers, what
// it will declare and what adopt writes on it.
func (p *setPlan) print(w io.Writer, serviceAccount string) {
	fmt.Fprintf(w, "Adopting %d objects of %s into %s%s (ID %s)\n", len(p.objects), p.source, cli.ParentName(p.parent), cli.InNamespace(p.parent.Namespace), p.id)
	where := "inline (spec.resources)"
	if p.holder != nil {
		where = "in the " + p.holder.GetKind() + " " + p.holder.GetName() + " (key " + adoptedKey + "), created beside it"
	}
	actor := "the operator's default service account"
	if serviceAccount != "" {
		actor = "service account " + serviceAccount
	}
	fmt.Fprintf(w, "Set: create it, declaring what the old tool declared %s, acting as %s\n", where, actor)
	for _, a := range p.objects {
		fmt.Fprintf(w, "  %s (field managers: %s): %s\n", a.ref, managers(a.obj.ManagedFields), p.action(a))
	}
	for _, m := range p.missing {
		fmt.Fprintf(w, "  %s: recorded, but not found; left out\n", m)
	}
	for _, l := range p.group.leftOut {
		fmt.Fprintf(w, "  left out: %s\n", l)
	}
	for _, n := range append(append([]string(nil), p.group.active...), p.group.notes...) {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	if slices.ContainsFunc(p.objects, func(a adoptee) bool { return a.obj.Annotations[apply.LastAppliedAnnotation] != "" }) {
		fmt.Fprintf(w, "Note: the set's first apply takes over the fields kubectl applied client-side (%s and the update entry of "+
			"kubectl-client-side-apply go), so it owns exactly what it declares\n", apply.LastAppliedAnnotation)
	}
	if len(p.group.appliers) > 0 {
		fmt.Fprintf(w, "Note: the fields %s applied server-side that the set declares go to field manager %s; those it does not declare "+
			"(a tool's own labels and annotations, such as Helm's app.kubernetes.io/managed-by) stay the old tool's\n",
			strings.Join(p.group.appliers, ", "), identity.MembersFieldManager)
	}
	fmt.Fprintln(w, "Note: fields the old tool never declared (defaults, an autoscaler's replicas, injected sidecars) stay as they are, owned by whoever wrote them")
}

// action is what adopt writes on one object, and what the set declares of it.
func (p *setPlan) action(a adoptee) string {
	if a.refusal != "" {
		return "refused: " + a.refusal
	}
	out := fmt.Sprintf("declares %s; label %s=%s (server-side apply, field manager %s)", p.declarations[a.ref.String()].from,
		applyset.PartOfLabel, p.id, identity.MembersFieldManager)
	if by := appliedBy(a.obj, p.group.appliers); len(by) > 0 {
		out += fmt.Sprintf(", and the fields %s applied that the set declares handed to it", strings.Join(by, ", "))
	}
	return out
}

// write creates the holder of a declaration kept out of line, labels every object
// and creates the set last, so that its first reconcile finds each label and
// each field the old tool applied already its own.
func (p *setPlan) write(ctx context.Context, c *cli.Clients, dr *cli.DryRun) error {
	create := metav1.CreateOptions{FieldManager: identity.PluginFieldManager, DryRun: dr.Opts()}
	if p.holder != nil {
		if _, err := c.Dynamic.Resource(holderResources[p.holder.GetKind()]).Namespace(p.parent.Namespace).Create(ctx, p.holder, create); err != nil {
			return fmt.Errorf("creating the %s %s: %w", p.holder.GetKind(), p.holder.GetName(), err)
		}
	}
	for i, a := range p.objects {
		var declared *fieldpath.Set
		if decl := p.declarations[a.ref.String()]; decl != nil {
			declared = decl.fields
		}
		if err := writeMemberLabel(ctx, c, p.id, a, p.group.appliers, declared, dr); err != nil {
			return fmt.Errorf("%d of %d objects labelled, then: %w", i, len(p.objects), err)
		}
	}
	if _, err := c.Dynamic.Resource(p.parent.Type.Resource).Namespace(p.parent.Namespace).Create(ctx, p.set, create); err != nil {
		return fmt.Errorf("every object labelled, then creating %s: %w", cli.ParentName(p.parent), err)
	}
	return nil
}

// writeMemberLabel applies the part-of label under the operator's members
// field manager, which is whose apply of the label the operator trusts, and
// joins to that manager's entry the fields of the old tool's apply entries
// that the set declares: its first apply then changes no owner and no value,
// and a field it later stops declaring is removed rather than left to a
// manager that no longer applies. What the set does not declare stays the
// old tool's: never hand a set fields it did not declare.
func writeMemberLabel(ctx context.Context, c *cli.Clients, id string, a adoptee, appliers []string, declared *fieldpath.Set, dr *cli.DryRun) error {
	obj, err := applyPartOf(ctx, c, id, a, identity.MembersFieldManager, dr)
	if err != nil || len(appliedBy(a.obj, appliers)) == 0 {
		return err
	}
	handed, err := joinInto(obj.GetManagedFields(), identity.MembersFieldManager, appliers, declared)
	if err != nil {
		return fmt.Errorf("handing the fields of %s to field manager %s: %w", a.ref, identity.MembersFieldManager, err)
	}
	if err := writeManagedFields(ctx, c, a, obj, handed, identity.PluginFieldManager, dr); err != nil {
		return fmt.Errorf("handing the fields of %s to field manager %s: %w", a.ref, identity.MembersFieldManager, err)
	}
	return nil
}

// joinInto joins the fields of the apply entries of from that declared
// holds into manager's apply entry; what declared does not hold stays in
// their entries, and every other entry as it is.
func joinInto(entries []metav1.ManagedFieldsEntry, manager string, from []string, declared *fieldpath.Set) ([]metav1.ManagedFieldsEntry, error) {
	given := &fieldpath.Set{}
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	target := -1
	for _, e := range entries {
		isApply := e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == ""
		switch {
		case isApply && e.Manager == manager:
			target = len(out)
			out = append(out, e)
		case isApply && slices.Contains(from, e.Manager):
			if declared == nil {
				return nil, fmt.Errorf("the fields the set declares are unknown")
			}
			owned, err := fieldsOfEntries([]metav1.ManagedFieldsEntry{e})
			if err != nil {
				return nil, err
			}
			given = given.Union(owned.Intersection(declared))
			if rest := owned.Difference(declared); !rest.Empty() {
				if e.FieldsV1, err = fieldsV1(rest); err != nil {
					return nil, err
				}
				out = append(out, e)
			}
		default:
			out = append(out, e)
		}
	}
	if target < 0 {
		return nil, fmt.Errorf("the API server recorded no apply of %s", manager)
	}
	owned, err := fieldsOfEntries(out[target : target+1])
	if err != nil {
		return nil, err
	}
	if out[target].FieldsV1, err = fieldsV1(owned.Union(given)); err != nil {
		return nil, err
	}
	return out, nil
}

func fieldsV1(set *fieldpath.Set) (*metav1.FieldsV1, error) {
	data, err := set.ToJSON()
	if err != nil {
		return nil, err
	}
	return metav1.NewFieldsV1(string(data)), nil
}

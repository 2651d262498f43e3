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
	"bytes"
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/util/proto"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// declaration is what an adopted object's set declares: what the old tool
// declared, never the live object, so that the set takes over no default,
// no autoscaler's replicas and no injected sidecar.
type declaration struct {
	obj *unstructured.Unstructured
	// from names the record it was read from, for the plan.
	from string
	// fields are the field paths it declares, known once asked for: only
	// those of the old tool's apply entries go to the operator's manager.
	fields *fieldpath.Set
}

// declarer reads declarations from the old tool's records: the manifest a
// source recorded (Helm's), kubectl's last-applied annotation, or else the
// fields the old tool's apply entries own, extracted with the type's schema
// as the API server publishes it.
type declarer struct {
	c        *cli.Clients
	recorded map[apply.ObjectRef]*unstructured.Unstructured
	appliers []string
	parser   *managedfields.GvkParser
}

// declare reads one object's declaration, or says why there is none.
func (d *declarer) declare(ctx context.Context, a adoptee) (*declaration, string, error) {
	if obj := d.recordedFor(a.ref); obj != nil {
		return d.clean(a, obj.DeepCopy(), "the old tool's manifest"), "", nil
	}
	if d.recorded != nil {
		return nil, "the old tool's manifest does not hold it", nil
	}
	if last := a.obj.Annotations[apply.LastAppliedAnnotation]; last != "" {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON([]byte(last)); err != nil {
			return nil, "its " + apply.LastAppliedAnnotation + " is not an object: " + err.Error(), nil
		}
		return d.clean(a, obj, apply.LastAppliedAnnotation), "", nil
	}
	entries := applyEntriesOf(a.obj.ManagedFields, d.appliers)
	if len(entries) == 0 {
		return nil, fmt.Sprintf("no record of what the old tool declared: no %s, and no apply entry of %v", apply.LastAppliedAnnotation, d.appliers), nil
	}
	obj, why, err := d.extract(ctx, a, entries)
	if obj == nil || err != nil {
		return nil, why, err
	}
	decl := d.clean(a, obj, "the fields "+joinManagers(entries)+" applied")
	decl.fields, err = fieldsOfEntries(entries)
	return decl, "", err
}

// recordedFor finds ref in the source's manifest, where a cluster-scoped
// object may carry the release's namespace.
func (d *declarer) recordedFor(ref apply.ObjectRef) *unstructured.Unstructured {
	if obj, ok := d.recorded[ref]; ok {
		return obj
	}
	for r, obj := range d.recorded {
		if ref.Namespace == "" && r.GroupKind == ref.GroupKind && r.Name == ref.Name {
			return obj
		}
	}
	return nil
}

// extract is managedfields.ExtractInto over the live object: the fields the
// entries own, with the schema the API server publishes for the type. An
// object whose type has none is refused rather than guessed at.
func (d *declarer) extract(ctx context.Context, a adoptee, entries []metav1.ManagedFieldsEntry) (*unstructured.Unstructured, string, error) {
	typ, why, err := d.typeOf(a)
	if typ == nil {
		return nil, why, err
	}
	live, err := d.c.Dynamic.Resource(a.resource).Namespace(a.ref.Namespace).Get(ctx, a.ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", a.ref, err)
	}
	value, err := typ.FromUnstructured(live.Object)
	if err != nil {
		return nil, "its live object does not match its type's schema: " + err.Error(), nil
	}
	owned, err := fieldsOfEntries(entries)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", a.ref, err)
	}
	extracted, ok := value.ExtractItems(owned.Leaves()).AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, "the fields the old tool applied are no object", nil
	}
	return &unstructured.Unstructured{Object: extracted}, "", nil
}

// typeOf is the schema the API server publishes for an object's type, or
// why there is none.
func (d *declarer) typeOf(a adoptee) (*typed.ParseableType, string, error) {
	gvk := a.resource.GroupVersion().WithKind(a.ref.GroupKind.Kind)
	if d.parser == nil {
		doc, err := d.c.Disco.OpenAPISchema()
		if err != nil {
			return nil, "", fmt.Errorf("reading the API server's OpenAPI schema: %w", err)
		}
		models, err := proto.NewOpenAPIData(doc)
		if err != nil {
			return nil, "", fmt.Errorf("reading the API server's OpenAPI schema: %w", err)
		}
		if d.parser, err = managedfields.NewGVKParser(models, false); err != nil {
			return nil, "", fmt.Errorf("reading the API server's OpenAPI schema: %w", err)
		}
	}
	typ := d.parser.Type(gvk)
	if typ == nil {
		return nil, fmt.Sprintf("the API server publishes no schema for %s, so the fields the old tool applied cannot be told apart", gvk), nil
	}
	return typ, "", nil
}

// fieldsOf sets the field paths decl declares, read with the type's schema,
// or says why they cannot be told.
func (d *declarer) fieldsOf(a adoptee, decl *declaration) (string, error) {
	if decl.fields != nil {
		return "", nil
	}
	typ, why, err := d.typeOf(a)
	if typ == nil {
		return why, err
	}
	value, err := typ.FromUnstructured(decl.obj.Object)
	if err != nil {
		return "its declaration does not match its type's schema: " + err.Error(), nil
	}
	if decl.fields, err = value.ToFieldSet(); err != nil {
		return "", fmt.Errorf("%s: the fields of its declaration: %w", a.ref, err)
	}
	return "", nil
}

// clean names the declared object as the live one and leaves out what the
// set writes itself: its part-of label, kubectl's annotation, the server's
// metadata.
func (d *declarer) clean(a adoptee, obj *unstructured.Unstructured, from string) *declaration {
	obj.SetAPIVersion(a.resource.GroupVersion().String())
	obj.SetKind(a.ref.GroupKind.Kind)
	obj.SetName(a.ref.Name)
	obj.SetNamespace(a.ref.Namespace)
	for _, field := range []string{"status", "uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"} {
		unstructured.RemoveNestedField(obj.Object, field)
		unstructured.RemoveNestedField(obj.Object, "metadata", field)
	}
	unstructured.RemoveNestedField(obj.Object, "metadata", "labels", applyset.PartOfLabel)
	unstructured.RemoveNestedField(obj.Object, "metadata", "annotations", apply.LastAppliedAnnotation)
	for _, m := range []string{"labels", "annotations"} {
		if v, found, _ := unstructured.NestedMap(obj.Object, "metadata", m); found && len(v) == 0 {
			unstructured.RemoveNestedField(obj.Object, "metadata", m)
		}
	}
	return &declaration{obj: obj, from: from}
}

// fieldsOfEntries is the union of the fields managed fields entries own.
func fieldsOfEntries(entries []metav1.ManagedFieldsEntry) (*fieldpath.Set, error) {
	owned := &fieldpath.Set{}
	for _, e := range entries {
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1.GetRawBytes())); err != nil {
			return nil, fmt.Errorf("the managed fields of %s: %w", e.Manager, err)
		}
		owned = owned.Union(set)
	}
	return owned, nil
}

// applyEntriesOf are the apply entries of the main resource held by appliers.
func applyEntriesOf(entries []metav1.ManagedFieldsEntry, appliers []string) []metav1.ManagedFieldsEntry {
	var out []metav1.ManagedFieldsEntry
	for _, e := range entries {
		if e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "" && e.FieldsV1 != nil && slices.Contains(appliers, e.Manager) {
			out = append(out, e)
		}
	}
	return out
}

func joinManagers(entries []metav1.ManagedFieldsEntry) string {
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Manager)
	}
	return fmt.Sprint(names)
}

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
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// writePartOf applies the part-of label, and nothing else, so that kubectl's
// field manager owns it: the set trusts a member whose label an apply of
// kubectl wrote, and an apply configuration without other fields takes no
// field from its owner. Two cases need a detour: on an object with kubectl's
// last-applied annotation, the API server would rewrite that annotation to
// the label alone for an apply named kubectl (and a Deployment's generation
// would move); and where kubectl's field manager already applies fields (kpt
// and cli-utils apply as "kubectl" by default), an apply of the label alone
// under that name would drop them. There the label is applied under another
// name and that entry joined to kubectl's, as kubectl hands its client-side
// fields to its server-side manager: kubectl then declares what it declared
// before, and the label. The apply entries of the old tool's appliers go the
// same way: what the old tool applied server-side is what it declared (Helm's
// manifest), so kubectl declares it from then on, and its next apply removes
// what it stops declaring instead of leaving it to a manager that is gone.
func writePartOf(ctx context.Context, c *cli.Clients, id string, a adoptee, appliers []string, dr *cli.DryRun) error {
	if a.obj.Annotations[apply.LastAppliedAnnotation] == "" && !kubectlAppliesMore(a.obj) && len(appliedBy(a.obj, appliers)) == 0 {
		_, err := applyPartOf(ctx, c, id, a, identity.KubectlFieldManager, dr)
		return err
	}
	obj, err := applyPartOf(ctx, c, id, a, identity.AdoptFieldManager, dr)
	if err != nil {
		return err
	}
	return handOverToKubectl(ctx, c, a, obj, appliers, dr)
}

// appliedBy names the old tool's appliers that hold an apply entry of obj.
func appliedBy(obj *metav1.PartialObjectMetadata, appliers []string) []string {
	var out []string
	for _, e := range obj.ManagedFields {
		if e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "" && slices.Contains(appliers, e.Manager) {
			out = append(out, e.Manager)
		}
	}
	return out
}

// kubectlAppliesMore reports whether kubectl's apply entry owns fields
// besides the part-of label.
func kubectlAppliesMore(obj *metav1.PartialObjectMetadata) bool {
	return slices.ContainsFunc(obj.ManagedFields, func(e metav1.ManagedFieldsEntry) bool {
		return isKubectlApply(e) && !ownsOnlyPartOf(e)
	})
}

func isKubectlApply(e metav1.ManagedFieldsEntry) bool {
	return e.Manager == identity.KubectlFieldManager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == ""
}

// applyPartOf applies an apply configuration holding only the label, under
// manager. The UID makes the apply fail rather than create an object deleted
// since it was read, or label one recreated under its name.
func applyPartOf(ctx context.Context, c *cli.Clients, id string, a adoptee, manager string, dr *cli.DryRun) (*unstructured.Unstructured, error) {
	config := &unstructured.Unstructured{}
	config.SetAPIVersion(a.resource.GroupVersion().String())
	config.SetKind(a.ref.GroupKind.Kind)
	config.SetNamespace(a.ref.Namespace)
	config.SetName(a.ref.Name)
	config.SetUID(a.obj.UID)
	config.SetLabels(map[string]string{applyset.PartOfLabel: id})
	data, err := json.Marshal(config.Object)
	if err != nil {
		return nil, err
	}
	obj, err := c.Dynamic.Resource(a.resource).Namespace(a.ref.Namespace).Patch(ctx, a.ref.Name, types.ApplyPatchType, data,
		metav1.PatchOptions{FieldManager: manager, DryRun: dr.Opts()})
	if err != nil {
		return nil, fmt.Errorf("labelling %s: %w", a.ref, err)
	}
	return obj, nil
}

// handOverToKubectl gives the adopting apply's managed fields entry, and the
// apply entries of the old tool's appliers, to kubectl's field manager. It
// writes metadata.managedFields alone, at the resourceVersion the apply left:
// any other change in between fails it.
func handOverToKubectl(ctx context.Context, c *cli.Clients, a adoptee, obj *unstructured.Unstructured, appliers []string, dr *cli.DryRun) error {
	handed, err := handOver(obj.GetManagedFields(), appliers)
	if err != nil {
		return fmt.Errorf("handing the label of %s to kubectl's field manager: %w", a.ref, err)
	}
	if err := writeManagedFields(ctx, c, a, obj, handed, identity.AdoptFieldManager, dr); err != nil {
		return fmt.Errorf("handing the label of %s to kubectl's field manager: %w", a.ref, err)
	}
	return nil
}

// writeManagedFields writes obj's metadata.managedFields alone, as
// fieldManager, at the resourceVersion obj has: any other change since
// fails it.
func writeManagedFields(ctx context.Context, c *cli.Clients, a adoptee, obj *unstructured.Unstructured, entries []metav1.ManagedFieldsEntry,
	fieldManager string, dr *cli.DryRun) error {
	patch := &unstructured.Unstructured{Object: map[string]any{}}
	patch.SetResourceVersion(obj.GetResourceVersion())
	patch.SetManagedFields(entries)
	data, err := json.Marshal(patch.Object)
	if err != nil {
		return err
	}
	_, err = c.Dynamic.Resource(a.resource).Namespace(a.ref.Namespace).Patch(ctx, a.ref.Name, types.MergePatchType, data,
		metav1.PatchOptions{FieldManager: fieldManager, DryRun: dr.Opts()})
	return err
}

// handOver computes the managed fields after the handover: the adopting
// entry and the appliers' apply entries joined into kubectl's apply entry
// (made from the adopting one where kubectl has none); every other entry as
// it was.
func handOver(entries []metav1.ManagedFieldsEntry, appliers []string) ([]metav1.ManagedFieldsEntry, error) {
	var adopting *metav1.ManagedFieldsEntry
	var given []*metav1.FieldsV1
	handed := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	for _, e := range entries {
		switch {
		case e.Manager == identity.AdoptFieldManager && e.Operation == metav1.ManagedFieldsOperationApply:
			adopting = &e
		case e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "" && slices.Contains(appliers, e.Manager):
			given = append(given, e.FieldsV1)
		default:
			handed = append(handed, e)
		}
	}
	if adopting == nil {
		return nil, fmt.Errorf("the API server recorded no apply of it")
	}
	i := slices.IndexFunc(handed, isKubectlApply)
	if i < 0 {
		adopting.Manager = identity.KubectlFieldManager
		handed = append(handed, *adopting)
		i = len(handed) - 1
	} else {
		given = append(given, adopting.FieldsV1)
	}
	for _, fields := range given {
		joined, err := joinFields(handed[i].FieldsV1, fields)
		if err != nil {
			return nil, err
		}
		handed[i].FieldsV1 = joined
	}
	return handed, nil
}

// joinFields is the union of two managed fields sets.
func joinFields(a, b *metav1.FieldsV1) (*metav1.FieldsV1, error) {
	union := &fieldpath.Set{}
	for _, f := range []*metav1.FieldsV1{a, b} {
		if f == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(f.GetRawBytes())); err != nil {
			return nil, err
		}
		union = union.Union(set)
	}
	data, err := union.ToJSON()
	if err != nil {
		return nil, err
	}
	return metav1.NewFieldsV1(string(data)), nil
}

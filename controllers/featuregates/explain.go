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

package featuregates

import (
	"context"
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// Reasons of the ExplainNotes condition.
const (
	ReasonNotesWritten = "NotesWritten"
	ReasonNotesFailed  = "NotesWriteFailed"
)

// Writing a note means patching the CRD: only the CRDs whose owners opted in
// with the explain annotation, and those whose notes must go. The right is
// not the default install's (a CRD's patch can add a conversion webhook):
// the opt-in component config/components/explain-notes grants it.

// explainResult is what writeNotes did, for status.
type explainResult struct {
	// asked says the CRD carries the explain annotation.
	asked bool
	// err says why the notes could not be written.
	err error
}

// writeNotes puts the notes of cfg's gates (cfg is nil once it is deleted)
// into the descriptions of crd's gated fields, or strips them when the gates
// or the owner's consent are gone. It writes only when the notes differ, so
// a reconcile of a CRD that carries them costs no write.
//
// A description sits in spec.versions, an atomic list: server-side apply
// gives the whole list to one field manager, so a note cannot be owned apart
// from the owner's schema. The operator applies the whole list, copied from
// the live CRD, and forces ownership, since the owner's manager holds the
// list; the owner's next apply that changes it must force it back. The
// resourceVersion the copy was read at rides along, so that a change the
// owner makes meanwhile fails the write instead of being reverted.
func (r *Reconciler) writeNotes(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates,
	crd *apiextensionsv1.CustomResourceDefinition) explainResult {
	result := explainResult{asked: featuregate.Explained(crd)}
	if crd == nil || !crd.DeletionTimestamp.IsZero() {
		return result
	}
	if !result.asked && !writtenBefore(crd) {
		return result // neither asked for nor ours to strip: text that looks like a note is the owner's
	}
	if cfg != nil && !cfg.DeletionTimestamp.IsZero() {
		cfg = nil
	}
	versions, changed, err := featuregate.ExplainNotes(cfg, crd)
	if err != nil || !changed {
		result.err = err
		return result
	}
	items := make([]any, 0, len(versions))
	for i := range versions {
		item, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&versions[i])
		if err != nil {
			result.err = err
			return result
		}
		items = append(items, item)
	}
	apply := client.ApplyConfigurationFromUnstructured(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiextensionsv1.SchemeGroupVersion.String(), "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": crd.Name, "resourceVersion": crd.ResourceVersion},
		"spec":     map[string]any{"versions": items},
	}})
	err = r.Client.Apply(ctx, apply, client.FieldOwner(identity.ExplainFieldManager), client.ForceOwnership)
	switch {
	case apierrors.IsForbidden(err):
		result.err = fmt.Errorf("the operator may not patch CustomResourceDefinition %s: add config/components/explain-notes "+
			"(chart: components.explainNotes.enabled) to the install, or remove the annotation %s: %w", crd.Name, featuregate.ExplainAnnotation, err)
	case err != nil:
		result.err = fmt.Errorf("applying the gate notes to CustomResourceDefinition %s: %w", crd.Name, err)
	}
	return result
}

// setExplainCondition reports the notes in cfg's status: while the CRD asks
// for them, whether they are written; otherwise not at all. A failure is
// also a Warning Event, as the Ready condition's are.
func (r *Reconciler) setExplainCondition(cfg *featuresv1alpha1.CustomFeatureGates, result explainResult) {
	if !result.asked {
		apimeta.RemoveStatusCondition(&cfg.Status.Conditions, featuresv1alpha1.ConditionExplainNotes)
		return
	}
	condition := metav1.Condition{
		Type: featuresv1alpha1.ConditionExplainNotes, Status: metav1.ConditionTrue, Reason: ReasonNotesWritten,
		Message:            fmt.Sprintf("the descriptions of the gated fields of %s carry their gate notes, for kubectl explain", cfg.Name),
		ObservedGeneration: cfg.Generation,
	}
	if result.err != nil {
		condition.Status, condition.Reason = metav1.ConditionFalse, ReasonNotesFailed
		condition.Message = fmt.Sprintf("writing the gate notes into %s failed: %v", cfg.Name, result.err)
		if !apierrors.IsConflict(result.err) { // a conflict is the owner's write meanwhile: the next reconcile retries
			r.Recorder.Eventf(cfg, nil, "Warning", ReasonNotesFailed, "WriteNotes", "%s", text.Truncate(condition.Message, maxEventNote))
		}
	}
	apimeta.SetStatusCondition(&cfg.Status.Conditions, condition)
}

// stripNotesOf strips the notes from the CRD named name, whose
// CustomFeatureGates is gone.
func (r *Reconciler) stripNotesOf(ctx context.Context, name string) error {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := r.Reader.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		return client.IgnoreNotFound(err)
	}
	return r.writeNotes(ctx, nil, crd).err
}

// writtenBefore says whether the explain field manager has written crd.
func writtenBefore(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return slices.ContainsFunc(crd.ManagedFields, func(e metav1.ManagedFieldsEntry) bool { return e.Manager == identity.ExplainFieldManager })
}

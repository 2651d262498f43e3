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

package setrun

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/util/sets"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// read gathers, decodes and checks the declared objects, reading the
// sources, the Secrets of oci sources and the objects of flux sources as
// the run's identity, and refuses inputs that declare nothing where the
// set had members. An oci or flux source that could not be fetched fails
// the read: it never reads as an empty source. ok is false when res stops
// the run.
func (r *Run) read(ctx context.Context) (res Result, ok bool) {
	spec := r.Set.GetCommonSpec()
	gathered, err := declared.GatherWith(ctx, r.Sources, r.Set, r.Limits, r.Artifacts)
	if err != nil {
		reason := readFailure(err)
		return r.failed(res, reason, reason == applyv1alpha1.ReasonInvalidInput || reason == applyv1alpha1.ReasonBudgetExceeded, err), false
	}
	scope := applyset.Scope{Namespace: r.Set.GetNamespace(), AdditionalNamespaces: sets.New(spec.AdditionalNamespaces...)}
	objects, checked, err := apply.Check(gathered.Inputs, apply.Target{Scope: scope, DefaultNamespace: r.Set.GetNamespace(), Mapper: r.Mapper})
	if err != nil {
		return res.fail(applyv1alpha1.ReasonInvalidInput, true, err), false
	}
	// A malformed depends-on annotation or a circle is bad input too.
	if _, err := apply.Order(objects); err != nil {
		return res.fail(applyv1alpha1.ReasonInvalidInput, true, err), false
	}
	warnings := make([]string, 0, len(checked))
	for _, w := range checked {
		warnings = append(warnings, w.String())
	}
	res.Objects, res.Warnings, res.Gathered = objects, &warnings, gathered
	counts := declared.CountBySource(r.Set, objects, gathered)
	if err := declared.RefuseEmpty(r.Set, r.Stored, objects, counts); err != nil {
		return res.fail(applyv1alpha1.ReasonEmptySource, true, err), false
	}
	res.Sources = counts
	return res, true
}

// readFailure is the reason a read of the inputs failed for.
func readFailure(err error) string {
	var denied *apply.AccessError
	switch {
	case errors.As(err, &denied):
		return applyv1alpha1.ReasonAccessDenied
	case errors.Is(err, declared.ErrSourceNotFound):
		return applyv1alpha1.ReasonSourceNotFound
	case errors.Is(err, declared.ErrArtifactUnavailable):
		return applyv1alpha1.ReasonArtifactUnavailable
	case errors.Is(err, declared.ErrBudgetExceeded):
		return applyv1alpha1.ReasonBudgetExceeded
	}
	return applyv1alpha1.ReasonInvalidInput
}

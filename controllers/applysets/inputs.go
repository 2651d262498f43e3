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

package applysets

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/declared"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// readObjects gathers, decodes and checks the declared objects, reading the
// sources with reader, the set's identity.
func (r *Reconciler) readObjects(ctx context.Context, reader client.Reader, set applyv1alpha1.Set, scope applyset.Scope) (
	objects []apply.Object, warnings []string, reason string, err error) {
	inputs, err := declared.Gather(ctx, reader, set, r.Limits)
	var denied *apply.AccessError
	switch {
	case errors.As(err, &denied):
		return nil, nil, applyv1alpha1.ReasonAccessDenied, err
	case errors.Is(err, declared.ErrSourceNotFound):
		return nil, nil, applyv1alpha1.ReasonSourceNotFound, err
	case err != nil:
		return nil, nil, applyv1alpha1.ReasonInvalidInput, err
	}
	objects, checked, err := apply.Check(inputs, apply.Target{Scope: scope, DefaultNamespace: set.GetNamespace(), Mapper: r.Mapper})
	if err != nil {
		return nil, nil, applyv1alpha1.ReasonInvalidInput, err
	}
	// A malformed depends-on annotation or a circle is bad input too.
	if _, err := apply.Order(objects); err != nil {
		return nil, nil, applyv1alpha1.ReasonInvalidInput, err
	}
	for _, w := range checked {
		warnings = append(warnings, w.String())
	}
	return objects, warnings, "", nil
}

// refuseEmpty stops a set whose inputs declare nothing while it has members,
// or one of whose sources declared objects and declares none now, unless
// spec.allowEmpty: an emptied source would otherwise prune what it held.
func refuseEmpty(set applyv1alpha1.Set, objects []apply.Object, counts []applyv1alpha1.SourceStatus) error {
	if set.GetCommonSpec().AllowEmptyEnabled() {
		return nil
	}
	if members := len(set.GetSetStatus().Members); len(objects) == 0 && members > 0 {
		return fmt.Errorf("the set's inputs declare no objects, while it has %d members: a source emptied by mistake "+
			"would delete them all, so nothing was applied or pruned; fix the inputs, or set spec.allowEmpty: true to prune every member", members)
	}
	if emptied := declared.Emptied(set.GetSetStatus().Sources, counts); len(emptied) > 0 {
		return fmt.Errorf("%s declared objects and now declare none: pruning would delete what they held, so nothing was "+
			"applied or pruned; fix the source, take it out of spec.sources, or set spec.allowEmpty: true", text.Summarize(emptied, 3))
	}
	return nil
}

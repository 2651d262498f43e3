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
	"context"
	"fmt"
	"io"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// unappliedSet is one of the operator's sets that has not been applied yet:
// it has no ID, so it is no ApplySet parent and list does not show it. Most
// often its first plan awaits approval.
type unappliedSet struct {
	Namespace, Parent string
	Reason, Message   string // of its Ready condition
}

// unapplied lists the operator's sets of the index's scope that have no ID
// yet. A cluster that does not serve them has none; any other failure to
// list them is a warning.
func (p *pages) unapplied(ctx context.Context, warnings io.Writer) []unappliedSet {
	cl, err := p.c.Client()
	if err != nil {
		fmt.Fprintf(warnings, "Warning: the operator's sets not applied yet could not be listed: %v\n", err)
		return nil
	}
	var opts []client.ListOption
	if !p.scope.AllNamespaces {
		opts = append(opts, client.InNamespace(p.c.Namespace))
	}
	if p.scope.Selector != "" {
		sel, err := labels.Parse(p.scope.Selector)
		if err != nil {
			return nil // list has refused the selector already, saying why
		}
		opts = append(opts, client.MatchingLabelsSelector{Selector: sel})
	}
	var out []unappliedSet
	for _, list := range []client.ObjectList{&applyv1alpha1.ApplySetList{}, &applyv1alpha1.ClusterApplySetList{}} {
		err := cl.List(ctx, list, opts...)
		switch {
		case apimeta.IsNoMatchError(err):
			continue // no operator here
		case err != nil:
			fmt.Fprintf(warnings, "Warning: the operator's sets not applied yet could not be listed: %v\n", err)
			continue
		}
		items, _ := apimeta.ExtractList(list)
		for _, item := range items {
			set, ok := item.(applyv1alpha1.Set)
			if !ok || set.GetLabels()[applyset.IDLabel] != "" {
				continue
			}
			kind := "applyset"
			if _, cluster := set.(*applyv1alpha1.ClusterApplySet); cluster {
				kind = "clusterapplyset"
			}
			u := unappliedSet{Namespace: set.GetNamespace(), Parent: kind + "." + strings.TrimSuffix(applyv1alpha1.GroupVersion.Group, ".") + "/" + set.GetName()}
			if ready := apimeta.FindStatusCondition(set.GetSetStatus().Conditions, applyv1alpha1.ConditionReady); ready != nil {
				u.Reason, u.Message = ready.Reason, ready.Message
			}
			out = append(out, u)
		}
	}
	return out
}

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

package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// maxCompletions bounds the names read of one type: a shell offers no more
// usefully, and a big cluster would make every Tab slow.
const maxCompletions = 500

// Sets says which parents a verb's argument completes to.
type Sets int

const (
	// AnyParent is every object with an ApplySet ID, whatever its tool.
	AnyParent Sets = iota
	// OperatorSets are the operator's ApplySets and ClusterApplySets,
	// those not applied yet, which carry no ID, included.
	OperatorSets
)

// CompleteParent is the completion of a verb's one PARENT argument: the
// sets in the namespace in use (-n), and the cluster-scoped ones, named as
// the verbs' examples name them (secret/web, applyset/web). A type that
// cannot be listed is told on standard error and left out.
func (o *Options) CompleteParent(which Sets) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return o.completeParents(cmd.Context(), which, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// CompleteParentFlag completes a flag naming a parent, as kubectl's
// --applyset names one: any parent.
func (o *Options) CompleteParentFlag(cmd *cobra.Command, flag string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return o.completeParents(cmd.Context(), AnyParent, toComplete), cobra.ShellCompDirectiveNoFileComp
	})
}

func (o *Options) completeParents(ctx context.Context, which Sets, prefix string) []string {
	c, err := o.Clients()
	if err != nil {
		cobra.CompErrorln(err.Error())
		return nil
	}
	types := []schema.GroupResource{applyv1alpha1.GroupVersion.WithResource("applysets").GroupResource(),
		applyv1alpha1.GroupVersion.WithResource("clusterapplysets").GroupResource()}
	selector := ""
	if which == AnyParent {
		if types, err = parentResources(ctx, c); err != nil {
			cobra.CompErrorln(err.Error())
			return nil
		}
		selector = applyset.IDLabel
	}
	var names []string
	for _, gr := range types {
		found, err := namesOf(ctx, c, gr, selector)
		if err != nil {
			cobra.CompErrorln(err.Error())
		}
		for _, name := range found {
			if strings.HasPrefix(name, prefix) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// parentResources are the types whose objects may be parents: Secrets,
// ConfigMaps and the custom resources of CRDs labelled as parent types.
func parentResources(ctx context.Context, c *Clients) ([]schema.GroupResource, error) {
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	list, err := c.Metadata.Resource(crds).List(ctx, metav1.ListOptions{LabelSelector: applyset.ParentTypeLabel})
	if err != nil {
		return nil, err
	}
	out := []schema.GroupResource{{Resource: "secrets"}, {Resource: "configmaps"}}
	for _, crd := range list.Items {
		out = append(out, schema.ParseGroupResource(crd.Name)) // a CRD's name is <plural>.<group>
	}
	return out, nil
}

// namesOf names the objects of gr, in the namespace in use when it is
// namespaced, that match selector.
func namesOf(ctx context.Context, c *Clients, gr schema.GroupResource, selector string) ([]string, error) {
	gvk, err := c.Mapper.KindFor(gr.WithVersion(""))
	if err != nil {
		return nil, err
	}
	mapping, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	namespace := ""
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		namespace = c.Namespace
	}
	list, err := c.Metadata.Resource(mapping.Resource).Namespace(namespace).List(ctx,
		metav1.ListOptions{LabelSelector: selector, Limit: maxCompletions})
	if err != nil {
		return nil, err
	}
	kind := strings.ToLower(gvk.Kind)
	if gvk.Group != "" && gvk.Group != applyv1alpha1.GroupVersion.Group {
		kind += "." + gvk.Group // the operator's kinds are known by their short form
	}
	names := make([]string, 0, len(list.Items))
	for _, obj := range list.Items {
		names = append(names, kind+"/"+obj.Name)
	}
	return names, nil
}

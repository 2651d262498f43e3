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

package applysetcli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// resolveParent reads a parent named as kubectl's --applyset flag names one:
// kind[.group]/name or resource[.group]/name (secret/web,
// configmaps/web, applysets.apply.applyset.dev/web), in the namespace in use
// when the type is namespaced.
func resolveParent(ctx context.Context, c *clients, arg string) (membership.ParentRef, error) {
	ref, err := parentOf(c, arg)
	if err != nil {
		return ref, err
	}
	obj, err := c.metadata.Resource(ref.Type.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return ref, fmt.Errorf("%s not found%s", parentName(ref), inNamespace(ref.Namespace))
	case err != nil:
		return ref, err
	case obj.Labels[applyset.IDLabel] == "":
		return ref, fmt.Errorf("%s%s is not an ApplySet parent: it has no %s label", parentName(ref), inNamespace(ref.Namespace), applyset.IDLabel)
	}
	return ref, nil
}

// parentOf names a parent without reading it; a bare name is a Secret, as
// for kubectl's --applyset.
func parentOf(c *clients, arg string) (membership.ParentRef, error) {
	typ, name, ok := strings.Cut(arg, "/")
	if !ok {
		typ, name = "secrets", arg
	}
	if typ == "" || name == "" {
		return membership.ParentRef{}, fmt.Errorf("parent %q: want TYPE/NAME, e.g. secret/my-set or applysets.apply.applyset.dev/my-set", arg)
	}
	gvk, err := c.mapper.KindFor(schema.ParseGroupResource(typ).WithVersion(""))
	if err != nil {
		return membership.ParentRef{}, fmt.Errorf("parent %q: %w", arg, err)
	}
	mapping, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return membership.ParentRef{}, fmt.Errorf("parent %q: %w", arg, err)
	}
	ref := membership.ParentRef{Name: name, Type: membership.ResourceType{Resource: mapping.Resource,
		GroupKind: mapping.GroupVersionKind.GroupKind(), Namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}}
	if ref.Type.Namespaced {
		ref.Namespace = c.namespace
	}
	return ref, nil
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}

// verifyParent reads the parent ref names with its namespace's members, and
// judges it as the operator's parent reconciler would.
func (o *Options) verifyParent(cmd *cobra.Command, c *clients, ref membership.ParentRef) (membership.Parent, membership.Verdict, error) {
	snap, err := o.snapshot(cmd, c, membership.SnapshotOptions{Namespace: ref.Namespace})
	if err != nil {
		return membership.Parent{}, membership.Verdict{}, err
	}
	for _, p := range snap.Parents {
		if p.Ref.Key() == ref.Key() {
			return p, snap.Verify(p, membership.NewAppliers(identity.TrustedAppliers())), nil
		}
	}
	return membership.Parent{}, membership.Verdict{}, fmt.Errorf("%s%s was not read: its type is no parent type (a Secret, a ConfigMap, "+
		"or a custom resource of a CRD labelled %s)", parentName(ref), inNamespace(ref.Namespace), applyset.ParentTypeLabel)
}

// isOperatorSet reports whether ref names one of the operator's own
// ApplySets or ClusterApplySets, which the operator, not the plugin, acts on.
func isOperatorSet(ref membership.ParentRef) bool {
	return ref.Type.GroupKind.Group == applyv1alpha1.GroupVersion.Group
}

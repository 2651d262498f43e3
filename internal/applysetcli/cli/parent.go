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
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// ResolveParent reads a parent named as kubectl's --applyset flag names one:
// kind[.group]/name or resource[.group]/name (secret/web,
// configmaps/web, applyset/web), in the namespace in use
// when the type is namespaced.
func ResolveParent(ctx context.Context, c *Clients, arg string) (membership.ParentRef, error) {
	ref, err := ParentOf(c, arg)
	if err != nil {
		return ref, err
	}
	obj, err := c.Metadata.Resource(ref.Type.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return ref, NoParentError{fmt.Errorf("%s not found%s", ParentName(ref), InNamespace(ref.Namespace))}
	case err != nil:
		return ref, err
	case obj.Labels[applyset.IDLabel] == "":
		return ref, NoParentError{fmt.Errorf("%s%s is not an ApplySet parent: it has no %s label", ParentName(ref), InNamespace(ref.Namespace), applyset.IDLabel)}
	}
	return ref, nil
}

// NoParentError is a parent argument that names no parent: no such object,
// or one without the ApplySet ID label.
type NoParentError struct{ error }

func (e NoParentError) Unwrap() error { return e.error }

// NotOperatorSetError refuses a parent of another tool to what only the
// operator's sets have: approval, deletion through the operator, a plan.
type NotOperatorSetError struct {
	// Name names the parent, with its namespace.
	Name string
	// Instead ends the message: why, or what to do instead.
	Instead string
}

func (e NotOperatorSetError) Error() string {
	return e.Name + " is not one of the operator's sets" + e.Instead
}

// ParentOf names a parent without reading it; a bare name is a Secret, as
// for kubectl's --applyset.
func ParentOf(c *Clients, arg string) (membership.ParentRef, error) {
	typ, name, ok := strings.Cut(arg, "/")
	if !ok {
		typ, name = "secrets", arg
	}
	if typ == "" || name == "" {
		return membership.ParentRef{}, fmt.Errorf("parent %q: want TYPE/NAME, e.g. secret/my-set or applyset/my-set", arg)
	}
	gvk, err := c.Mapper.KindFor(schema.ParseGroupResource(typ).WithVersion(""))
	if err != nil {
		return membership.ParentRef{}, fmt.Errorf("parent %q: %w", arg, err)
	}
	mapping, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return membership.ParentRef{}, fmt.Errorf("parent %q: %w", arg, err)
	}
	ref := membership.ParentRef{Name: name, Type: membership.ResourceType{Resource: mapping.Resource,
		GroupKind: mapping.GroupVersionKind.GroupKind(), Namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}}
	if ref.Type.Namespaced {
		ref.Namespace = c.Namespace
	}
	return ref, nil
}

// ParentName names a parent as kubectl's --applyset flag and `kubectl get -o
// name` do: kind[.group]/name, the kind in lower case.
func ParentName(ref membership.ParentRef) string {
	kind := strings.ToLower(ref.Type.GroupKind.Kind)
	if ref.Type.GroupKind.Group != "" {
		kind += "." + ref.Type.GroupKind.Group
	}
	return kind + "/" + ref.Name
}

// InNamespace ends a name in messages with its namespace, if it has one.
func InNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}

// NSFlag is the -n flag a command the plugin suggests needs, if any.
func NSFlag(ns string) string {
	if ns == "" {
		return ""
	}
	return " -n " + ns
}

// IsOperatorSet reports whether ref names one of the operator's own
// ApplySets or ClusterApplySets, which the operator, not the plugin, acts on.
func IsOperatorSet(ref membership.ParentRef) bool {
	return ref.Type.GroupKind.Group == applyv1alpha1.GroupVersion.Group
}

// OperatorSetOf reads one of the operator's sets.
func OperatorSetOf(ctx context.Context, cl client.Client, ref membership.ParentRef) (applyv1alpha1.Set, error) {
	var set applyv1alpha1.Set = &applyv1alpha1.ApplySet{}
	if ref.Type.GroupKind.Kind == "ClusterApplySet" {
		set = &applyv1alpha1.ClusterApplySet{}
	}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, set); err != nil {
		return nil, err
	}
	return set, nil
}

// OperatorSet connects as the user and reads one of the operator's sets,
// giving the client for what the verb does next.
func (c *Clients) OperatorSet(ctx context.Context, ref membership.ParentRef) (client.Client, applyv1alpha1.Set, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, nil, err
	}
	set, err := OperatorSetOf(ctx, cl, ref)
	return cl, set, err
}

// MembersOf reads the members one of the operator's sets records, inline
// or in chunks, as the user. Members of lost chunks are unproven, as the
// operator takes them: the error says so, beside the others.
func MembersOf(ctx context.Context, cl client.Reader, set applyv1alpha1.Set) (*inventory.Inventory, error) {
	inv, err := inventory.Load(ctx, cl, set.GetSetStatus(), set.GetUID())
	var lost *inventory.LostChunksError
	if err != nil && !errors.As(err, &lost) {
		return nil, err
	}
	return &inv, err
}

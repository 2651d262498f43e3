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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get

// errUninstalling stops every delete while the operator's own
// CustomResourceDefinition is being deleted: removing the CRD deletes every
// set, and uninstalling the operator must leave the workloads it applied.
var errUninstalling = errors.New("the operator is being uninstalled (its CustomResourceDefinition is being deleted): members are kept")

var crdKind = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// uninstalling reports whether the CustomResourceDefinition of the reconciled
// kind is being deleted or gone, read live: the cache may lag.
func (r *Reconciler) uninstalling(ctx context.Context) (bool, error) {
	mapping, err := r.mapper.RESTMapping(r.groupKind)
	if meta.IsNoMatchError(err) {
		return true, nil // the kind is no longer served
	}
	if err != nil {
		return false, fmt.Errorf("looking up %s: %w", r.groupKind, err)
	}
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdKind)
	name := mapping.Resource.Resource + "." + r.groupKind.Group
	err = r.reader.Get(ctx, client.ObjectKey{Name: name}, crd)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading CustomResourceDefinition %s: %w", name, err)
	}
	return !crd.DeletionTimestamp.IsZero(), nil
}

// stopWhenUninstalling is asked before each group of deletes: it stops them
// when the operator is being uninstalled, or when that cannot be told.
func (r *Reconciler) stopWhenUninstalling(ctx context.Context) error {
	going, err := r.uninstalling(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("not deleting: %w", err)
	case going:
		return errUninstalling
	}
	return nil
}

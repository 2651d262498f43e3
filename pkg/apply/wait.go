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

package apply

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// waitForCRDs waits until every applied CRD is Established and its kind
// resolves: the API server may report Established a moment before discovery
// serves the new type, and an object of the kind written in that moment would
// fail with "no matches for kind".
func (e *Engine) waitForCRDs(ctx context.Context, objects []Object) error {
	timeout := cmp.Or(e.EstablishTimeout, time.Minute)
	for _, o := range objects {
		if o.Object.GroupVersionKind().GroupKind() != crdGroupKind {
			continue
		}
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(o.Object.GroupVersionKind())
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
			if err := e.Client.Get(ctx, client.ObjectKey{Name: o.Object.GetName()}, crd); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, c := range conditions {
				cond, _ := c.(map[string]any)
				if cond["type"] == "Established" && cond["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("waiting for CustomResourceDefinition %s to be established: %w", o.Object.GetName(), err)
		}
		if err := e.waitForKind(ctx, crd, timeout); err != nil {
			return err
		}
	}
	return nil
}

// waitForKind waits until the REST mapper resolves the kind crd defines.
func (e *Engine) waitForKind(ctx context.Context, crd *unstructured.Unstructured, timeout time.Duration) error {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	gk := schema.GroupKind{Group: group, Kind: kind}
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		_, last = e.Client.RESTMapper().RESTMapping(gk)
		if meta.IsNoMatchError(last) {
			return false, nil
		}
		return last == nil, last
	})
	if err != nil {
		return fmt.Errorf("waiting for the cluster to serve %s defined by CustomResourceDefinition %s: %w",
			gk, crd.GetName(), errors.Join(err, last))
	}
	return nil
}

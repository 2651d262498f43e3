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
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// immutableFields returns the fields an error says may not change (the API
// server's "field is immutable"), sorted; none for any other error.
func immutableFields(err error) []string {
	var status apierrors.APIStatus
	if err == nil || !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var fields []string
	for _, c := range status.Status().Details.Causes {
		if strings.Contains(c.Message, "immutable") {
			fields = append(fields, c.Field)
		}
	}
	slices.Sort(fields)
	return slices.Compact(fields)
}

// recreateWait bounds how long a recreate waits for the old object to go.
const recreateWait = 10 * time.Second

// recreate deletes an object whose immutable fields the set changed and
// applies it again, as Flux's force does: only with Force, only the object
// read (UID precondition), and only as far as the identity may delete.
func (e *Engine) recreate(ctx context.Context, p objectPlan, fields []string, applyOpts []client.ApplyOption, opts ApplyOptions) written {
	ref := p.Ref()
	w := written{}
	if opts.DryRun {
		w.change = &Change{Ref: ref, Action: Recreated, Fields: fields, Reason: "would be deleted and created again"}
		return w
	}
	if err := e.checkAccess(ctx, []Permission{{Verb: "delete", Resource: p.Resource, Namespace: ref.Namespace}}); err != nil {
		w.change, w.err = changeOf(failed(ref, err)), err
		return w
	}
	uid := p.existing.GetUID()
	old := &metav1.PartialObjectMetadata{}
	old.SetGroupVersionKind(p.existing.GroupVersionKind())
	old.SetNamespace(ref.Namespace)
	old.SetName(ref.Name)
	err := e.retryTransient(ctx, func() error {
		return e.Client.Delete(ctx, old, client.Preconditions{UID: &uid}, client.PropagationPolicy(metav1.DeletePropagationBackground))
	})
	if client.IgnoreNotFound(err) != nil {
		w.change, w.err = changeOf(failed(ref, fmt.Errorf("deleting it to recreate it: %w", err))), err
		return w
	}
	gone := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, recreateWait, true, func(ctx context.Context) (bool, error) {
		err := e.Client.Get(ctx, client.ObjectKeyFromObject(old), &metav1.PartialObjectMetadata{TypeMeta: old.TypeMeta})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if gone != nil {
		w.change = &Change{Ref: ref, Action: Waiting, Reason: "deleted to be recreated; waits for it to be gone"}
		return w
	}
	result := p.desired.DeepCopy()
	if err := e.applyObject(ctx, result, applyOpts...); err != nil {
		w.change, w.err = changeOf(failed(ref, fmt.Errorf("creating it again: %w", err))), err
		return w
	}
	w.change = &Change{Ref: ref, Action: Recreated, Fields: fields, Object: opts.kept(result)}
	return w
}

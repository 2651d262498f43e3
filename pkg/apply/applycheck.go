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
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// checkExternal reads, as the engine's identity, the dependencies that are
// not in the set: it returns those that do not exist and the reads it may
// not make.
func (e *Engine) checkExternal(ctx context.Context, refs []ObjectRef) (missing []ObjectRef, denied []Permission, err error) {
	for _, ref := range refs {
		mapping, mapErr := e.Client.RESTMapper().RESTMapping(ref.GroupKind)
		if meta.IsNoMatchError(mapErr) {
			missing = append(missing, ref)
			continue
		}
		if mapErr != nil {
			return nil, nil, fmt.Errorf("looking up %s: %w", ref.GroupKind, mapErr)
		}
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(mapping.GroupVersionKind)
		getErr := e.Client.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, obj)
		switch {
		case apierrors.IsNotFound(getErr):
			missing = append(missing, ref)
		case deniedRead(getErr, "get", mapping.Resource.GroupResource(), ref.Namespace) != nil:
			denied = append(denied, *deniedRead(getErr, "get", mapping.Resource.GroupResource(), ref.Namespace))
		case getErr != nil:
			return nil, nil, fmt.Errorf("reading %s: %w", ref, getErr)
		}
	}
	return missing, denied, nil
}

func joinRefs(refs []ObjectRef) string {
	names := make([]string, 0, len(refs))
	for _, r := range refs {
		names = append(names, r.String())
	}
	return strings.Join(names, ", ")
}

// CheckApply reads the objects and asks whether the engine's identity may
// make the writes an apply of them needs, writing nothing: it returns the
// *AccessError Apply would, or nil.
func (e *Engine) CheckApply(ctx context.Context, objects []Object, opts ApplyOptions) error {
	plans := e.inspectAll(ctx, objects, opts, false)
	return e.checkAccess(ctx, writePermissions(plans), deniedReads(plans)...)
}

// writePermissions are the permissions the writes of plans need: patch for
// every apply, and create as well for objects that do not exist yet (an apply
// that creates is authorized as a create too). A guarded object needs get as
// well, which its read would have proven: should it exist, it is read.
func writePermissions(plans []objectPlan) []Permission {
	var perms []Permission
	for _, p := range plans {
		if p.done != nil {
			continue
		}
		perm := Permission{Verb: "patch", Resource: p.Resource, Namespace: p.Object.Object.GetNamespace()}
		perms = append(perms, perm)
		if p.existing == nil {
			perm.Verb = "create"
			perms = append(perms, perm)
		}
		if p.guarded {
			perm.Verb = "get"
			perms = append(perms, perm)
		}
	}
	return perms
}

func deniedReads(plans []objectPlan) []Permission {
	var denied []Permission
	for _, p := range plans {
		if p.denied != nil {
			denied = append(denied, *p.denied)
		}
	}
	return denied
}

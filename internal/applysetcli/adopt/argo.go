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

package adopt

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// applicationResource is Argo CD's Application.
var applicationResource = schema.GroupResource{Group: "argoproj.io", Resource: "applications"}

// argoResourcesFinalizer makes Argo CD delete an Application's objects when
// the Application is deleted; /foreground and /background are its variants.
const argoResourcesFinalizer = "resources-finalizer.argocd.argoproj.io"

// argoKind is --from application/NAME.
var argoKind = fromKind{typ: "application", group: applicationResource.Group, records: "Argo CD Applications", tool: "Argo CD",
	help: []string{
		"an Argo CD Application's status.resources (automated sync must be",
		"off; never while it carries the resources finalizer)",
	},
	open: func(n named) source { return argoSource{n} }}

// argoSource is the list of objects Argo CD records in an Application's
// status: the ones it syncs, and deletes with the Application.
type argoSource struct{ named }

func (s argoSource) read(ctx context.Context, c *cli.Clients) (adoptGroup, error) {
	obj, group, err := s.readObject(ctx, c, applicationResource, func(obj *unstructured.Unstructured) ([]apply.ObjectRef, error) {
		return argoResources(c, obj)
	})
	if err != nil {
		return group, err
	}
	group.appliers = []string{"argocd-controller"}
	for _, f := range obj.GetFinalizers() {
		if f == argoResourcesFinalizer || strings.HasPrefix(f, argoResourcesFinalizer+"/") {
			group.refusals = append(group.refusals, fmt.Sprintf("%s carries the finalizer %s: deleting it would delete these objects, "+
				"even once adopted; remove the finalizer (or delete the Application with argocd app delete --cascade=false) and adopt then", s, f))
		}
	}
	if automated, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "syncPolicy", "automated"); found && automated != nil {
		group.active = append(group.active, fmt.Sprintf("%s syncs automatically (spec.syncPolicy.automated): Argo CD would apply "+
			"these objects again, and prune them if automated prune is on; turn automated sync off first", s))
	}
	group.notes = append(group.notes, fmt.Sprintf("Argo CD still tracks these objects: a sync of %s applies them again, "+
		"and deleting it with cascade deletes them; delete it with argocd app delete --cascade=false", s))
	return group, nil
}

// argoResources reads status.resources[]: group, kind, namespace, name. A
// namespaced object without a namespace is in the Application's destination
// namespace.
func argoResources(c *cli.Clients, obj *unstructured.Unstructured) ([]apply.ObjectRef, error) {
	resources, found, err := unstructured.NestedSlice(obj.Object, "status", "resources")
	switch {
	case err != nil:
		return nil, fmt.Errorf("status.resources: %w", err)
	case !found:
		return nil, fmt.Errorf("no status.resources: Argo CD has recorded no objects")
	}
	destination, _, _ := unstructured.NestedString(obj.Object, "spec", "destination", "namespace")
	refs := make([]apply.ObjectRef, 0, len(resources))
	for _, r := range resources {
		entry, _ := r.(map[string]any)
		ref := apply.ObjectRef{GroupKind: schema.GroupKind{Group: str(entry, "group"), Kind: str(entry, "kind")},
			Namespace: str(entry, "namespace"), Name: str(entry, "name")}
		if ref.GroupKind.Kind == "" || ref.Name == "" {
			return nil, fmt.Errorf("status.resources holds an entry without kind or name: %v", entry)
		}
		if ref.Namespace == "" {
			mapping, err := c.Mapper.RESTMapping(ref.GroupKind)
			if err != nil {
				return nil, fmt.Errorf("status.resources: %w", err)
			}
			if isNamespaced(mapping.Scope.Name()) {
				ref.Namespace = destination
			}
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

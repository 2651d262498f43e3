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

package parents

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// applyGroups sets each member's apply group and the members it depends
// on, as the operator's engine orders what it applies (apply.Order): by kind,
// then after whatever its depends-on annotation names. An annotation the
// engine would refuse, or a circle, leaves every member grouped by its kind
// alone, and is returned.
func applyGroups(members []membership.Member, out []MemberHealth) error {
	objects := make([]apply.Object, len(members))
	for i, m := range members {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(m.GroupKind.WithVersion(""))
		u.SetNamespace(m.Namespace)
		u.SetName(m.Name)
		if out[i].dependsOn != "" {
			u.SetAnnotations(map[string]string{apply.DependsOnAnnotation: out[i].dependsOn})
		}
		objects[i] = apply.Object{Input: apply.Input{Object: u}}
	}
	_, err := apply.Order(objects)
	if err != nil {
		for i := range objects {
			objects[i].Object.SetAnnotations(nil)
			objects[i].DependsOn = nil
		}
		if _, byKind := apply.Order(objects); byKind != nil {
			return byKind // without annotations nothing can be refused
		}
	}
	inSet := make(map[apply.ObjectRef]bool, len(objects))
	for _, o := range objects {
		inSet[o.Ref()] = true
	}
	for i, o := range objects {
		out[i].Group = o.Group
		for _, dep := range o.DependsOn {
			if inSet[dep] {
				out[i].DependsOn = append(out[i].DependsOn, dep.String())
			}
		}
	}
	return err
}

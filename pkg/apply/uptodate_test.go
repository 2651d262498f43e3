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
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestUpToDate(t *testing.T) {
	desired := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "a", "namespace": "ns", "labels": map[string]any{"part-of": "x"}},
			"data":     map[string]any{"k": "v"},
		}}
	}
	managed := func(manager string, op metav1.ManagedFieldsOperationType, fields string) []metav1.ManagedFieldsEntry {
		return []metav1.ManagedFieldsEntry{{Manager: manager, Operation: op, FieldsV1: metav1.NewFieldsV1(fields)}}
	}
	const ours = `{"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:part-of":{}}}}`
	existing := func(mutate func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		u := desired()
		u.SetUID("uid")
		u.SetResourceVersion("7")
		u.Object["data"].(map[string]any)["other"] = "kept"
		u.SetManagedFields(managed("applyset-operator", metav1.ManagedFieldsOperationApply, ours))
		if mutate != nil {
			mutate(u)
		}
		return u
	}

	tests := []struct {
		name     string
		existing *unstructured.Unstructured
		want     bool
	}{
		{name: "every declared value in place, nothing else owned", existing: existing(nil), want: true},
		{name: "missing", existing: nil, want: false},
		{name: "a declared value differs", existing: existing(func(u *unstructured.Unstructured) {
			u.Object["data"].(map[string]any)["k"] = "changed"
		}), want: false},
		{name: "the label is missing", existing: existing(func(u *unstructured.Unstructured) { u.SetLabels(nil) }), want: false},
		{name: "we own a field the declaration dropped", existing: existing(func(u *unstructured.Unstructured) {
			u.SetManagedFields(managed("applyset-operator", metav1.ManagedFieldsOperationApply,
				`{"f:data":{"f:k":{},"f:old":{}},"f:metadata":{"f:labels":{"f:part-of":{}}}}`))
		}), want: false},
		{name: "another manager's fields do not matter", existing: existing(func(u *unstructured.Unstructured) {
			u.SetManagedFields(append(u.GetManagedFields(), managed("kubectl", metav1.ManagedFieldsOperationApply, `{"f:data":{"f:other":{}}}`)...))
		}), want: true},
		{name: "ownership in associative lists cannot be compared", existing: existing(func(u *unstructured.Unstructured) {
			u.SetManagedFields(managed("applyset-operator", metav1.ManagedFieldsOperationApply,
				`{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}}`))
		}), want: false},
		{name: "never applied by us", existing: existing(func(u *unstructured.Unstructured) { u.SetManagedFields(nil) }), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := upToDate(tt.existing, desired(), "applyset-operator"); got != tt.want {
				t.Errorf("upToDate = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUpToDateWithDigest(t *testing.T) {
	deployment := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "ns"},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": "app", "image": "app:1"}}}}},
		}}
	}
	// live is the desired Deployment as the API server stores it: defaults in
	// its list items, and ownership of an associative list.
	live := func(desired *unstructured.Unstructured, mutate func(map[string]any)) *unstructured.Unstructured {
		u := desired.DeepCopy()
		container := u.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		container["imagePullPolicy"] = "IfNotPresent"
		container["terminationMessagePath"] = "/dev/termination-log"
		u.Object["spec"].(map[string]any)["replicas"] = int64(1)
		u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "applyset-operator", Operation: metav1.ManagedFieldsOperationApply,
			FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`)}})
		if mutate != nil {
			mutate(container)
		}
		return u
	}
	stamped := func(d *unstructured.Unstructured) *unstructured.Unstructured { stampConfig(d); return d }

	applied := stamped(deployment())
	if got := upToDate(live(applied, nil), stamped(deployment()), "applyset-operator"); !got {
		t.Error("the same configuration, with defaults filled in, is not up to date")
	}
	changed := deployment()
	changed.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "app:2"
	if upToDate(live(applied, nil), stamped(changed), "applyset-operator") {
		t.Error("a changed image is up to date")
	}
	dropped := deployment()
	dropped.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["args"] = []any{"--x"}
	withArgs := stamped(dropped)
	if upToDate(live(withArgs, nil), stamped(deployment()), "applyset-operator") {
		t.Error("a configuration that dropped a field the manager owns is up to date")
	}
	if upToDate(live(applied, func(c map[string]any) { c["image"] = "edited" }), stamped(deployment()), "applyset-operator") {
		t.Error("a value someone edited is up to date")
	}
	stale := live(applied, nil)
	stale.SetManagedFields(nil)
	if upToDate(stale, stamped(deployment()), "applyset-operator") {
		t.Error("an object the manager never applied is up to date by its digest")
	}
}

func TestContainsLists(t *testing.T) {
	tests := []struct {
		name       string
		have, want any
		ok         bool
	}{
		{"items filled in by defaults", []any{map[string]any{"port": 80, "protocol": "TCP"}}, []any{map[string]any{"port": 80}}, true},
		{"an item differs", []any{map[string]any{"port": 81}}, []any{map[string]any{"port": 80}}, false},
		{"another length", []any{map[string]any{"port": 80}, map[string]any{"port": 81}}, []any{map[string]any{"port": 80}}, false},
		{"scalars match whole", []any{"a", "b"}, []any{"a", "b"}, true},
		{"scalars in another order", []any{"b", "a"}, []any{"a", "b"}, false},
	}
	for _, tt := range tests {
		if got := contains(tt.have, tt.want); got != tt.ok {
			t.Errorf("%s: contains = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

// The API server rewrites some values as it stores them; those are no change.
func TestContainsStoredForms(t *testing.T) {
	tests := []struct {
		name       string
		have, want any
		ok         bool
	}{
		{"an empty list left out", map[string]any{}, map[string]any{"subjects": []any{}}, true},
		{"an empty map left out", map[string]any{}, map[string]any{"labels": map[string]any{}}, true},
		{"false and zero left out", map[string]any{}, map[string]any{"hostNetwork": false, "n": int64(0), "s": ""}, true},
		{"null is no opinion", map[string]any{"creationTimestamp": "2026-11-22T00:00:00Z"},
			map[string]any{"creationTimestamp": nil}, true},
		{"a value left out is a change", map[string]any{}, map[string]any{"hostNetwork": true}, false},
		{"a non-empty list left out is a change", map[string]any{}, map[string]any{"subjects": []any{"a"}}, false},
		{"a quantity in canonical form", map[string]any{"cpu": "1"}, map[string]any{"cpu": "1000m"}, true},
		{"a number as a quantity", map[string]any{"cpu": "2", "mem": "1500m"}, map[string]any{"cpu": int64(2), "mem": 1.5}, true},
		{"binary units", map[string]any{"memory": "512Mi"}, map[string]any{"memory": "0.5Gi"}, true},
		{"another quantity is a change", map[string]any{"cpu": "1"}, map[string]any{"cpu": "999m"}, false},
		{"strings that are not quantities", map[string]any{"image": "b"}, map[string]any{"image": "a"}, false},
		{"a number is not a string", map[string]any{"port": int64(80)}, map[string]any{"port": "80"}, false},
	}
	for _, tt := range tests {
		if got := contains(tt.have, tt.want); got != tt.ok {
			t.Errorf("%s: contains = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

func TestComparableSecret(t *testing.T) {
	secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "s"}, "stringData": map[string]any{"password": "s3cret"}, "data": map[string]any{"a": "Yg=="}}}
	stored := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"},
		"data": map[string]any{"a": "Yg==", "password": "czNjcmV0"}, "type": "Opaque"}
	if !contains(stored, comparable(secret).Object) {
		t.Errorf("a Secret's stringData is not found in its stored data: %v", comparable(secret).Object)
	}
	crd := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"spec": map[string]any{"group": "x"}, "status": map[string]any{"acceptedNames": map[string]any{"kind": ""}, "storedVersions": []any{}}}}
	if !contains(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": map[string]any{"group": "x"},
		"status": map[string]any{"acceptedNames": map[string]any{"kind": "X"}}}, comparable(crd).Object) {
		t.Error("a declared status, which is not written with the object, counts as a change")
	}
	if _, kept := secret.Object["stringData"]; !kept {
		t.Error("comparable changed the declared object")
	}
}

// The desired object shares its body with the declaration: stamping it, and
// leaving ignored fields as they are on a whole copy, must leave the
// declaration as it was read.
func TestDesiredLeavesTheDeclarationAlone(t *testing.T) {
	declared := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"},
			"annotations": map[string]any{"note": "kept"}},
		"spec": map[string]any{"replicas": int64(3), "template": map[string]any{"metadata": map[string]any{}}},
	}}
	before := declared.DeepCopy()
	desired := withPartOf(declared, "applyset-x-v1")
	stampConfig(desired)
	existing := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"replicas": int64(7)}}}
	copied := withIgnoredLeft(desired, existing, [][]string{{"spec", "replicas"}})

	if !equality.Semantic.DeepEqual(declared.Object, before.Object) {
		t.Errorf("the declaration changed:\n%v\nwant\n%v", declared.Object, before.Object)
	}
	if got := desired.GetLabels(); got["app"] != "web" || got[applyset.PartOfLabel] != "applyset-x-v1" {
		t.Errorf("desired labels %v", got)
	}
	if desired.GetAnnotations()[appliedConfigAnnotation] == "" || desired.GetAnnotations()["note"] != "kept" {
		t.Errorf("desired annotations %v", desired.GetAnnotations())
	}
	if replicas, _, _ := unstructured.NestedInt64(copied.Object, "spec", "replicas"); replicas != 7 {
		t.Errorf("the copy left ignored replicas at %d, want the live 7", replicas)
	}
	// The digest is that of the configuration without the digest: stamping
	// again gives the same one.
	again := desired.DeepCopy()
	stampConfig(again)
	if again.GetAnnotations()[appliedConfigAnnotation] != desired.GetAnnotations()[appliedConfigAnnotation] {
		t.Error("stamping a stamped object changed its digest")
	}
}

// A member an apply or a preview leaves unchanged keeps no copy of itself in
// its plan, only what a real apply's Change keeps: a steady set of 100,000
// held them all.
func TestUnchangedPlanHoldsNoCopies(t *testing.T) {
	declared := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "namespace": "ns"}, "data": map[string]any{"k": "v"}}}
	o := Object{Input: Input{Object: declared}, Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		GroupVersionKind: declared.GroupVersionKind(), Scope: meta.RESTScopeNamespace}}
	existing := withPartOf(declared, "applyset-x-v1")
	stampConfig(existing)
	existing.SetUID("u1")
	existing.Object["metadata"].(map[string]any)["managedFields"] = []any{entry(fieldManager, "Apply", "")}
	e := &Engine{FieldManager: fieldManager, LegacyManagers: []string{}}
	slim := func(obj *unstructured.Unstructured) *unstructured.Unstructured {
		out := &unstructured.Unstructured{}
		out.SetUID(obj.GetUID())
		return out
	}

	for _, dryRun := range []bool{false, true} {
		p := e.inspectOne(o, ApplyOptions{SetID: "applyset-x-v1", DryRun: dryRun, Keep: slim}, existing, nil)
		if p.done == nil || p.done.Action != Unchanged {
			t.Fatalf("dry run %v: the plan is %+v, want Unchanged", dryRun, p.done)
		}
		switch {
		case p.existing != nil || p.desired != nil:
			t.Errorf("dry run %v: an unchanged member's plan keeps its copies: existing %v, desired %v", dryRun, p.existing != nil, p.desired != nil)
		case !dryRun && (p.done.Object == nil || p.done.Object.GetUID() != "u1" || len(p.done.Object.Object) != 1):
			t.Errorf("the change keeps %v, want what Keep keeps", p.done.Object)
		case dryRun && p.done.Object != nil:
			t.Errorf("a preview's change keeps %v", p.done.Object)
		}
	}
}

// A preview says an object is created with its Namespace only when the set
// creates that Namespace: one that exists as declared keeps no copy in its
// plan, and still exists.
func TestPreviewInNewNamespaces(t *testing.T) {
	object := func(kind, namespace, name string) Object {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind(kind)
		u.SetNamespace(namespace)
		u.SetName(name)
		return Object{Input: Input{Object: u}}
	}
	plans := []objectPlan{
		{Object: object("Namespace", "", "there"), done: &Change{Action: Unchanged}},
		{Object: object("ConfigMap", "there", "a")},
		{Object: object("Namespace", "", "new")},
		{Object: object("ConfigMap", "new", "b")},
	}
	previewInNewNamespaces(plans)
	if plans[1].done != nil {
		t.Errorf("an object in a Namespace that exists is %+v, want it previewed by the API server", plans[1].done)
	}
	if plans[3].done == nil || plans[3].done.Action != Created || !plans[3].previewed {
		t.Errorf("an object in a Namespace the set creates is %+v, want Created without a dry run", plans[3].done)
	}
}

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
	"encoding/json"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func entry(manager, operation, subresource string) map[string]any {
	e := map[string]any{"manager": manager, "operation": operation, "apiVersion": "v1",
		"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:data": map[string]any{"f:a": map[string]any{}}}}
	if subresource != "" {
		e["subresource"] = subresource
	}
	return e
}

// withEntries is a ConfigMap kubectl applied client-side, with entries.
func withEntries(entries ...map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "namespace": "ns"}}}
	list := make([]any, 0, len(entries))
	for _, e := range entries {
		list = append(list, e)
	}
	obj.Object["metadata"].(map[string]any)["managedFields"] = list
	obj.SetAnnotations(map[string]string{LastAppliedAnnotation: `{"data":{"a":"1"}}`})
	return obj
}

func TestPlanHandoverTakesOnlyLegacyUpdatesOfTheObject(t *testing.T) {
	e := &Engine{FieldManager: fieldManager}
	obj := withEntries(
		entry(fieldManager, "Apply", ""),
		entry(kubectlClientSide, "Update", "status"),
		entry("kustomize-controller", "Apply", ""),
		entry(kubectlClientSide, "Update", ""),
		entry("helm", "Update", ""),
	)
	h := e.planHandover(obj, &unstructured.Unstructured{Object: map[string]any{}})
	if h == nil || !slices.Equal(h.indexes, []int{3}) || !slices.Equal(h.managers, []string{kubectlClientSide}) || h.annotation == nil {
		t.Fatalf("planned %+v, want the main resource's update of %s at 3, with the annotation", h, kubectlClientSide)
	}
	after := h.applyTo(obj)
	if len(after.GetManagedFields()) != 4 || after.GetAnnotations()[LastAppliedAnnotation] != "" {
		t.Fatalf("the preview left %v and annotations %v", after.GetManagedFields(), after.GetAnnotations())
	}
}

func TestPlanHandoverNeverLeavesNoEntry(t *testing.T) {
	e := &Engine{FieldManager: fieldManager}
	if h := e.planHandover(withEntries(entry(kubectlClientSide, "Update", "")), &unstructured.Unstructured{Object: map[string]any{}}); h != nil {
		t.Fatalf("planned to remove every entry: %+v", h)
	}
}

func TestPlanHandoverHonoursTheEngineAndTheDeclaration(t *testing.T) {
	obj := withEntries(entry(fieldManager, "Apply", ""), entry(kubectlClientSide, "Update", ""))
	if h := (&Engine{LegacyManagers: []string{}}).planHandover(obj, obj); h != nil {
		t.Fatalf("an engine told to hand over none planned %+v", h)
	}
	declared := &unstructured.Unstructured{Object: map[string]any{}}
	declared.SetAnnotations(map[string]string{LastAppliedAnnotation: "{}"})
	if h := (&Engine{}).planHandover(obj, declared); h == nil || h.annotation != nil {
		t.Fatalf("planned %+v; the set declares the annotation, which must stay", h)
	}
}

func TestHandoverPatchTestsWhatItRemoves(t *testing.T) {
	obj := withEntries(entry(fieldManager, "Apply", ""), entry(kubectlClientSide, "Update", ""), entry(kubectlClientSide, "Update", ""))
	raw, err := (&Engine{}).planHandover(obj, &unstructured.Unstructured{Object: map[string]any{}}).patch()
	if err != nil {
		t.Fatal(err)
	}
	var ops []map[string]any
	if err := json.Unmarshal(raw, &ops); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range ops {
		got = append(got, op["op"].(string)+" "+op["path"].(string))
	}
	want := []string{
		"test /metadata/managedFields/2", "remove /metadata/managedFields/2",
		"test /metadata/managedFields/1", "remove /metadata/managedFields/1",
		"test /metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration",
		"remove /metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("patch %v, want %v", got, want)
	}
}

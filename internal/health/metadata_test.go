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

package health

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// metadataOnly is what a metadata list gives of obj: its type, name,
// namespace and deletionTimestamp.
func metadataOnly(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := &unstructured.Unstructured{}
	out.SetAPIVersion(obj.GetAPIVersion())
	out.SetKind(obj.GetKind())
	out.SetName(obj.GetName())
	out.SetNamespace(obj.GetNamespace())
	out.SetDeletionTimestamp(obj.GetDeletionTimestamp())
	return out
}

// Every kind JudgesByMetadata names is judged from its metadata as it is
// whole, live and being deleted; a kind with a status, or with a check of
// its own, is not named, and its metadata alone would be misjudged.
func TestJudgesByMetadata(t *testing.T) {
	kstatus := &Checker{}
	for gk := range statusless {
		version := "v1"
		if gk.Group != "" {
			version = gk.Group + "/v1"
		}
		for _, deleting := range []string{"", `, deletionTimestamp: "2026-01-01T00:00:00Z"`} {
			whole := object(t, fmt.Sprintf(`{apiVersion: %s, kind: %s, metadata: {name: x, namespace: ns, generation: 3,
				labels: {a: b}, annotations: {c: d}%s}, data: {k: v}, rules: [{verbs: [get]}], subjects: [{kind: User, name: u}]}`,
				version, gk.Kind, deleting))
			if !kstatus.JudgesByMetadata(gk) {
				t.Errorf("%s is not judged by its metadata", gk)
			}
			if got, want := kstatus.Judge(metadataOnly(whole)), kstatus.Judge(whole); got != want {
				t.Errorf("%s%s: its metadata judged %+v, the whole object %+v", gk, deleting, got, want)
			}
		}
	}

	rolledOut := object(t, deploymentRolledOut)
	if kstatus.JudgesByMetadata(rolledOut.GroupVersionKind().GroupKind()) {
		t.Error("a Deployment is judged by its metadata")
	}
	if got, whole := kstatus.Judge(metadataOnly(rolledOut)), kstatus.Judge(rolledOut); got == whole {
		t.Errorf("a rolled-out Deployment is judged %+v from its metadata alone too: the comparison above proves nothing", got)
	}

	configMap := schema.GroupKind{Kind: "ConfigMap"}
	checked, err := NewChecker([]Check{{GroupKind: configMap, Current: "self.data.ready == 'yes'"}})
	if err != nil {
		t.Fatal(err)
	}
	if checked.JudgesByMetadata(configMap) {
		t.Error("a ConfigMap with a check of its own is judged by its metadata")
	}
}
